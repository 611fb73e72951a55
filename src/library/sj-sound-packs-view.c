/* sj-sound-packs-view.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sounds page's Packs view: "Download for offline" pack by pack. The
 * sample packs, then the drum machines, one SjSoundPackRow each, as
 * SjSoundDownloads has them and followed live (SjSoundDownloads::
 * pack-changed); how much the downloaded sounds take on disk, and "Remove
 * All Downloaded Sounds…" behind a confirmation.
 *
 * What the user can do is a packs.* action of this widget (download,
 * cancel and remove take a pack's id), so the rows' buttons, the keyboard
 * and the tests share it. The packs are counted again in a thread each time
 * the view is shown: sounds played meanwhile, or removed by hand, show.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sj-sound-pack-row.h"
#include "sj-sound-packs-view.h"

struct _SjSoundPacksView
{
  GtkWidget         parent_instance;

  SjSoundDownloads *downloads;
  GHashTable       *rows;          /* pack id → SjSoundPackRow */
  GCancellable     *cancellable;
  gboolean          refreshing;

  /* Template widgets */
  GtkLabel         *usage_label;
  GtkSpinButton    *limit_spin;
  GtkButton        *remove_all_button;
  GtkListBox       *packs_list;
  GtkListBox       *machines_list;
};

G_DEFINE_FINAL_TYPE (SjSoundPacksView, sj_sound_packs_view, GTK_TYPE_WIDGET)

/* What is shown ----------------------------------------------------------- */

static void
update_usage (SjSoundPacksView *self)
{
  const char * const *packs = sj_sound_downloads_get_packs (self->downloads);
  g_autofree char *text = NULL;
  gboolean any = sj_sound_downloads_get_active (self->downloads);

  for (guint i = 0; packs[i] != NULL && !any; i++)
    any = sj_sound_downloads_get_pack (self->downloads, packs[i])->n_cached > 0;

  guint limit_mb = sj_sound_cache_get_limit_mb (sj_sound_downloads_get_cache (self->downloads));

  if (!sj_sound_downloads_get_usage_known (self->downloads))
    text = g_strdup (_("Measuring the downloaded sounds…"));
  else if (!any)
    text = g_strdup (_("No sounds are downloaded"));
  else if (limit_mb > 0)
    {
      g_autofree char *size = g_format_size_full (sj_sound_downloads_get_disk_usage (self->downloads),
                                                  G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *limit = g_format_size_full ((guint64)limit_mb * 1024 * 1024, G_FORMAT_SIZE_IEC_UNITS);

      /* TRANSLATORS: the sound cache's disk space and its limit, e.g. "1.2 GiB of 4.0 GiB used;
       * packs kept for offline are never removed" */
      text = g_strdup_printf (_("%s of %s used; packs kept for offline are never removed"), size, limit);
    }
  else
    {
      g_autofree char *size = g_format_size (sj_sound_downloads_get_disk_usage (self->downloads));

      /* TRANSLATORS: the disk space of the sound cache, e.g. "Downloaded sounds take 31.2 MB" */
      text = g_strdup_printf (_("Downloaded sounds take %s"), size);
    }

  gtk_label_set_label (self->usage_label, text);
  gtk_widget_set_sensitive (GTK_WIDGET (self->remove_all_button), any);
}

static gboolean
mib_to_gib (GBinding     *binding,
            const GValue *from,
            GValue       *to,
            gpointer      user_data)
{
  g_value_set_double (to, g_value_get_uint (from) / 1024.0);
  return TRUE;
}

static gboolean
gib_to_mib (GBinding     *binding,
            const GValue *from,
            GValue       *to,
            gpointer      user_data)
{
  double gib = CLAMP (g_value_get_double (from), 0, 1024);

  g_value_set_uint (to, (guint)(gib * 1024 + 0.5));
  return TRUE;
}

static void
update_row (SjSoundPacksView *self,
            const char       *id)
{
  SjSoundPackRow *row = g_hash_table_lookup (self->rows, id);

  if (row != NULL)
    sj_sound_pack_row_update (row, sj_sound_downloads_get_pack (self->downloads, id),
                              sj_sound_downloads_get_failures (self->downloads, id));
}

static void
pack_changed_cb (SjSoundPacksView *self,
                 const char       *id,
                 SjSoundDownloads *downloads)
{
  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));

  update_row (self, id);
}

static void
usage_changed_cb (SjSoundPacksView *self,
                  GParamSpec       *pspec,
                  SjSoundDownloads *downloads)
{
  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));

  update_usage (self);
}

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SjSoundPacksView) self = user_data;
  g_autoptr(GError) error = NULL;

  self->refreshing = FALSE;
  if (!sj_sound_downloads_refresh_finish (SJ_SOUND_DOWNLOADS (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Sounds: the downloaded sounds could not be counted: %s", error->message);
}

static void
map_cb (SjSoundPacksView *self)
{
  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));

  if (self->downloads == NULL || self->refreshing)
    return;
  self->refreshing = TRUE;
  sj_sound_downloads_refresh_async (self->downloads, self->cancellable, refreshed_cb, g_object_ref (self));
}

/* Actions ------------------------------------------------------------------- */

static void
download_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  SjSoundPacksView *self = SJ_SOUND_PACKS_VIEW (widget);

  if (self->downloads != NULL)
    sj_sound_downloads_start (self->downloads, g_variant_get_string (param, NULL));
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSoundPacksView *self = SJ_SOUND_PACKS_VIEW (widget);

  if (self->downloads != NULL)
    sj_sound_downloads_cancel (self->downloads, g_variant_get_string (param, NULL));
}

static void
removed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(SjSoundPacksView) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_sound_downloads_remove_finish (SJ_SOUND_DOWNLOADS (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Sounds: the downloaded sounds could not be removed: %s", error->message);
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSoundPacksView *self = SJ_SOUND_PACKS_VIEW (widget);

  if (self->downloads != NULL)
    sj_sound_downloads_remove_async (self->downloads, g_variant_get_string (param, NULL), self->cancellable,
                                     removed_cb, g_object_ref (self));
}

static void
remove_all_confirmed_cb (SjSoundPacksView *self,
                         const char       *response,
                         AdwMessageDialog *dialog)
{
  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));

  if (self->downloads != NULL)
    sj_sound_downloads_remove_async (self->downloads, NULL, self->cancellable, removed_cb, g_object_ref (self));
}

static void
remove_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  SjSoundPacksView *self = SJ_SOUND_PACKS_VIEW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  g_autofree char *size = NULL;
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  if (self->downloads == NULL)
    return;

  size = g_format_size (sj_sound_downloads_get_disk_usage (self->downloads));
  body = g_strdup_printf (_("They take %s. A sound that is not downloaded plays only while online: "
                            "it is downloaded again when first played, if “Download sounds when first "
                            "played” is on."), size);
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Remove All Downloaded Sounds?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "remove", _("_Remove"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response::remove", G_CALLBACK (remove_all_confirmed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_sound_packs_view_dispose (GObject *object)
{
  SjSoundPacksView *self = (SjSoundPacksView *)object;
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  if (self->downloads != NULL)
    g_signal_handlers_disconnect_by_data (self->downloads, self);
  g_clear_object (&self->downloads);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_SOUND_PACKS_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (sj_sound_packs_view_parent_class)->dispose (object);
}

static void
sj_sound_packs_view_finalize (GObject *object)
{
  SjSoundPacksView *self = (SjSoundPacksView *)object;

  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sj_sound_packs_view_parent_class)->finalize (object);
}

static void
sj_sound_packs_view_class_init (SjSoundPacksViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_sound_packs_view_dispose;
  object_class->finalize = sj_sound_packs_view_finalize;

  g_type_ensure (SJ_TYPE_SOUND_PACK_ROW);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-sound-packs-view.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSoundPacksView, usage_label);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPacksView, limit_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPacksView, remove_all_button);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPacksView, packs_list);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPacksView, machines_list);

  gtk_widget_class_install_action (widget_class, "packs.download", "s", download_action);
  gtk_widget_class_install_action (widget_class, "packs.cancel", "s", cancel_action);
  gtk_widget_class_install_action (widget_class, "packs.remove", "s", remove_action);
  gtk_widget_class_install_action (widget_class, "packs.remove-all", NULL, remove_all_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjsoundpacksview");
}

static void
sj_sound_packs_view_init (SjSoundPacksView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cancellable = g_cancellable_new ();
  g_signal_connect (self, "map", G_CALLBACK (map_cb), NULL);
}

/**
 * sj_sound_packs_view_set_downloads:
 *
 * Lists the packs of @downloads, and follows them.
 */
void
sj_sound_packs_view_set_downloads (SjSoundPacksView *self,
                                   SjSoundDownloads *downloads)
{
  const char * const *packs;

  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));
  g_return_if_fail (SJ_IS_SOUND_DOWNLOADS (downloads));
  g_return_if_fail (self->downloads == NULL);

  self->downloads = g_object_ref (downloads);
  packs = sj_sound_downloads_get_packs (downloads);
  for (guint i = 0; packs[i] != NULL; i++)
    {
      const SjSoundPackInfo *info = sj_sound_downloads_get_pack (downloads, packs[i]);
      SjSoundPackRow *row = sj_sound_pack_row_new (info->id, info->title);

      gtk_list_box_append (info->collection != NULL ? self->machines_list : self->packs_list, GTK_WIDGET (row));
      g_hash_table_insert (self->rows, g_strdup (info->id), row);
      update_row (self, info->id);
    }

  g_signal_connect_object (downloads, "pack-changed", G_CALLBACK (pack_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (downloads, "notify::disk-usage", G_CALLBACK (usage_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (downloads, "notify::active", G_CALLBACK (usage_changed_cb), self, G_CONNECT_SWAPPED);
  /* The limit is the cache's, which the "sound-cache-limit-mb" setting is
   * bound to both ways (sj_application_get_sound_cache()). */
  g_object_bind_property_full (sj_sound_downloads_get_cache (downloads), "limit-mb",
                               gtk_spin_button_get_adjustment (self->limit_spin), "value",
                               G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE,
                               mib_to_gib, gib_to_mib, NULL, NULL);
  g_signal_connect_object (sj_sound_downloads_get_cache (downloads), "notify::limit-mb",
                           G_CALLBACK (usage_changed_cb), self, G_CONNECT_SWAPPED);
  update_usage (self);
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    map_cb (self);
}

/* Returns: (transfer none) (nullable): the downloads shown */
SjSoundDownloads *
sj_sound_packs_view_get_downloads (SjSoundPacksView *self)
{
  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));

  return self->downloads;
}

/* Puts the keyboard on the view's first control. */
void
sj_sound_packs_view_focus (SjSoundPacksView *self)
{
  g_assert (SJ_IS_SOUND_PACKS_VIEW (self));

  gtk_widget_child_focus (GTK_WIDGET (self), GTK_DIR_TAB_FORWARD);
}
