/* sj-keyring-key-rows.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The two rows of the Settings page that look after a key in the keyring:
 * a status row that says whether a key is stored for an endpoint (with a
 * Clear button), and a password entry row that stores a new one. The
 * model's API key and the transcription service's key work the same way,
 * each under its own (provider, base URL) pair, so one object drives both
 * rather than the page repeating the logic per key.
 *
 * The key never goes near GSettings and is never shown back: once stored
 * it leaves the entry; when storing fails it stays there, so trying again
 * needs no retyping. What went wrong is said in the status row. A key
 * stored or cleared elsewhere (another window, the Chat's first-start
 * status page) shows at once through SjSecretsMonitor. ::changed tells the
 * page that these rows stored or cleared the key, so whoever uses it looks
 * it up again.
 *
 * The rows may have a Set button (its label says Replace once a key is
 * stored, and Enter in the entry does the same), or rely on the entry's
 * own apply button. Without an endpoint there is nowhere to keep a key,
 * and a key typed then would be lost, so the entry is off.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-keyring-key-rows.h"
#include "sj-secrets.h"
#include "sj-secrets-monitor.h"

struct _SjKeyringKeyRows
{
  GObject       parent_instance;

  AdwActionRow *status_row;
  GtkButton    *clear_button;
  AdwEntryRow  *entry_row;
  GtkButton    *set_button;          /* or NULL: the entry's apply button */
  char         *no_endpoint_text;

  char         *provider;
  char         *base_url;            /* "" while there is no endpoint */

  GCancellable *cancellable;         /* the rows' lifetime: store, clear */
  GCancellable *check_cancellable;   /* the status check under way */
  gboolean      stored;
  gboolean      checking;
  gboolean      busy;                /* storing or clearing */
};

G_DEFINE_FINAL_TYPE (SjKeyringKeyRows, sj_keyring_key_rows, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
is_cancelled (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static gboolean
has_endpoint (SjKeyringKeyRows *self)
{
  return self->provider != NULL && self->base_url != NULL && *self->base_url != '\0';
}

static void
update_widgets (SjKeyringKeyRows *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->entry_row));

  gtk_widget_set_sensitive (GTK_WIDGET (self->entry_row), has_endpoint (self));
  /* Nothing to clear while the keyring has not said yet. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->clear_button), self->stored && !self->busy && !self->checking);
  if (self->set_button == NULL)
    return;

  gtk_button_set_label (self->set_button, self->stored ? _("Replace") : _("Set"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->set_button), !self->busy && has_endpoint (self) && *text != '\0');
}

static void
show_state (SjKeyringKeyRows *self,
            const char       *text,
            gboolean          stored)
{
  self->stored = stored;
  adw_action_row_set_subtitle (self->status_row, text);
  update_widgets (self);
}

/* What the keyring said after @what went wrong, in the status row. */
static void
show_error (SjKeyringKeyRows *self,
            const char       *what,
            const GError     *error)
{
  g_autofree char *text = NULL;

  if (g_error_matches (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING))
    text = g_strdup_printf (_("No keyring available: %s"), error->message);
  else
    /* TRANSLATORS: what went wrong with the key, then the keyring's
     * error, e.g. "The key could not be stored: The keyring is locked." */
    text = g_strdup_printf (_("%s: %s"), what, error->message);

  show_state (self, text, FALSE);
}

static void
has_key_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  SjKeyringKeyRows *self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean has_key = FALSE;

  /* Cancelled when the rows went away or a newer check replaced this one:
   * @self may be gone, so it is not touched. */
  if (!sj_secrets_has_api_key_finish (result, &has_key, &error) && is_cancelled (error))
    return;

  self->checking = FALSE;
  if (error != NULL)
    show_error (self, _("The keyring could not be read"), error);
  else
    show_state (self, has_key ? _("Stored in the keyring") : _("No key stored"), has_key);
}

static void
update_status (SjKeyringKeyRows *self)
{
  /* Only the latest check may report. */
  g_cancellable_cancel (self->check_cancellable);
  g_clear_object (&self->check_cancellable);
  self->check_cancellable = g_cancellable_new ();

  self->checking = has_endpoint (self);
  if (!self->checking)
    {
      show_state (self, self->no_endpoint_text, FALSE);
      return;
    }

  show_state (self, _("Checking the keyring…"), self->stored);
  sj_secrets_has_api_key_async (self->provider, self->base_url, self->check_cancellable, has_key_cb, self);
}

/* After a store or a clear of these rows: @failure says which, should
 * @error say it failed. */
static void
finish_change (SjKeyringKeyRows *self,
               const GError     *error,
               const char       *failure)
{
  self->busy = FALSE;
  if (error != NULL)
    {
      show_error (self, failure, error);
      return;
    }

  update_status (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  SjKeyringKeyRows *self = user_data;
  g_autoptr(GError) error = NULL;

  /* Cancelled: the rows are gone. */
  if (!sj_secrets_store_api_key_finish (result, &error) && is_cancelled (error))
    return;

  /* Stored: nothing on screen holds the key any longer. On an error it
   * stays in the entry, so trying again needs no retyping. */
  if (error == NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->entry_row), "");
  finish_change (self, error, _("The key could not be stored"));
}

static void
clear_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!sj_secrets_clear_api_key_finish (result, &error) && is_cancelled (error))
    return;

  finish_change (user_data, error, _("The key could not be cleared"));
}

/* The Set button, Enter with one, or the entry's apply button. */
static void
store_activated_cb (SjKeyringKeyRows *self)
{
  const char *key;

  g_assert (SJ_IS_KEYRING_KEY_ROWS (self));

  key = gtk_editable_get_text (GTK_EDITABLE (self->entry_row));
  if (self->busy || *key == '\0' || !has_endpoint (self))
    return;

  self->busy = TRUE;
  show_state (self, _("Storing the key…"), self->stored);
  sj_secrets_store_api_key_async (self->provider, self->base_url, key, self->cancellable, store_cb, self);
}

static void
clear_clicked_cb (SjKeyringKeyRows *self)
{
  g_assert (SJ_IS_KEYRING_KEY_ROWS (self));

  if (self->busy || !has_endpoint (self))
    return;

  self->busy = TRUE;
  show_state (self, _("Clearing the key…"), self->stored);
  sj_secrets_clear_api_key_async (self->provider, self->base_url, self->cancellable, clear_cb, self);
}

static void
entry_changed_cb (SjKeyringKeyRows *self)
{
  g_assert (SJ_IS_KEYRING_KEY_ROWS (self));

  update_widgets (self);
}

static void
key_changed_cb (SjKeyringKeyRows *self,
                const char       *provider,
                const char       *base_url)
{
  g_assert (SJ_IS_KEYRING_KEY_ROWS (self));

  /* The rows' own store or clear updates the status when it is done. */
  if (!self->busy && has_endpoint (self) && g_str_equal (provider, self->provider) &&
      g_str_equal (base_url, self->base_url))
    update_status (self);
}

static void
sj_keyring_key_rows_dispose (GObject *object)
{
  SjKeyringKeyRows *self = (SjKeyringKeyRows *)object;

  /* The callbacks hold no reference: once cancelled they return without
   * touching the rows. */
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->check_cancellable);

  g_clear_object (&self->status_row);
  g_clear_object (&self->clear_button);
  g_clear_object (&self->entry_row);
  g_clear_object (&self->set_button);

  G_OBJECT_CLASS (sj_keyring_key_rows_parent_class)->dispose (object);
}

static void
sj_keyring_key_rows_finalize (GObject *object)
{
  SjKeyringKeyRows *self = (SjKeyringKeyRows *)object;

  g_clear_object (&self->cancellable);
  g_clear_object (&self->check_cancellable);
  g_free (self->no_endpoint_text);
  g_free (self->provider);
  g_free (self->base_url);

  G_OBJECT_CLASS (sj_keyring_key_rows_parent_class)->finalize (object);
}

static void
sj_keyring_key_rows_class_init (SjKeyringKeyRowsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_keyring_key_rows_dispose;
  object_class->finalize = sj_keyring_key_rows_finalize;

  /**
   * SjKeyringKeyRows::changed:
   *
   * The rows stored or cleared the key: whoever uses it looks it up again.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_keyring_key_rows_init (SjKeyringKeyRows *self)
{
  self->cancellable = g_cancellable_new ();
  self->check_cancellable = g_cancellable_new ();
}

/**
 * sj_keyring_key_rows_new:
 * @status_row: the row whose subtitle says whether a key is stored
 * @clear_button: the button that clears the stored key
 * @entry_row: the password row a new key is typed in
 * @set_button: (nullable): the button that stores it, or %NULL when the
 *   entry's apply button does
 * @no_endpoint_text: what the status row says while there is no endpoint
 *
 * The rows have no endpoint until sj_keyring_key_rows_set_endpoint().
 *
 * Returns: (transfer full): the object driving the rows
 */
SjKeyringKeyRows *
sj_keyring_key_rows_new (AdwActionRow *status_row,
                         GtkButton    *clear_button,
                         AdwEntryRow  *entry_row,
                         GtkButton    *set_button,
                         const char   *no_endpoint_text)
{
  SjKeyringKeyRows *self;

  g_return_val_if_fail (ADW_IS_ACTION_ROW (status_row), NULL);
  g_return_val_if_fail (GTK_IS_BUTTON (clear_button), NULL);
  g_return_val_if_fail (ADW_IS_ENTRY_ROW (entry_row), NULL);
  g_return_val_if_fail (set_button == NULL || GTK_IS_BUTTON (set_button), NULL);
  g_return_val_if_fail (no_endpoint_text != NULL, NULL);

  self = g_object_new (SJ_TYPE_KEYRING_KEY_ROWS, NULL);
  self->status_row = g_object_ref (status_row);
  self->clear_button = g_object_ref (clear_button);
  self->entry_row = g_object_ref (entry_row);
  self->set_button = set_button != NULL ? g_object_ref (set_button) : NULL;
  self->no_endpoint_text = g_strdup (no_endpoint_text);

  g_signal_connect_object (clear_button, "clicked", G_CALLBACK (clear_clicked_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (entry_row, "changed", G_CALLBACK (entry_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (entry_row, "apply", G_CALLBACK (store_activated_cb), self, G_CONNECT_SWAPPED);
  if (set_button != NULL)
    {
      g_signal_connect_object (set_button, "clicked", G_CALLBACK (store_activated_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (entry_row, "entry-activated", G_CALLBACK (store_activated_cb), self,
                               G_CONNECT_SWAPPED);
    }
  g_signal_connect_object (sj_secrets_monitor_get_default (), "key-changed", G_CALLBACK (key_changed_cb), self,
                           G_CONNECT_SWAPPED);
  update_status (self);

  return self;
}

/**
 * sj_keyring_key_rows_set_endpoint:
 * @provider: (nullable): who the key belongs to in the keyring
 * @base_url: (nullable): the URL it is kept under; %NULL or empty while
 *   there is none
 *
 * Keeps the key under @provider and @base_url from now on, and asks the
 * keyring whether one is stored there.
 */
void
sj_keyring_key_rows_set_endpoint (SjKeyringKeyRows *self,
                                  const char       *provider,
                                  const char       *base_url)
{
  g_assert (SJ_IS_KEYRING_KEY_ROWS (self));

  g_free (self->provider);
  self->provider = g_strdup (provider);
  g_free (self->base_url);
  self->base_url = g_strdup (base_url != NULL ? base_url : "");
  update_status (self);
}
