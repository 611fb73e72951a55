/* sj-sound-pack-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One pack of the Sounds page's Packs view: its name, what of it is
 * downloaded ("12 of 48 files downloaded (3.1 MB); 36 to download, size
 * unknown": the maps do not say how large a file is, and the row says so), a progress bar
 * while it downloads, why it stopped, and the files that could not be had,
 * by name, in an expander. Its buttons (Download for Offline, Cancel,
 * Remove) activate the packs.* actions of SjSoundPacksView with the pack's
 * id; each has an accessible label naming the pack, and when a button
 * hides under the keyboard focus (Download turning into Cancel) the focus
 * moves to the one that takes its place.
 *
 * The row only shows what it is told (sj_sound_pack_row_update()).
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-pack-row.h"

/* Failures are listed up to this many; the rest are counted. */
#define MAX_LISTED_FAILURES 50

struct _SjSoundPackRow
{
  GtkListBoxRow   parent_instance;

  char           *id;
  char           *title;

  /* Template widgets */
  GtkLabel       *title_label;
  GtkLabel       *subtitle_label;
  GtkButton      *download_button;
  GtkButton      *cancel_button;
  GtkButton      *remove_button;
  GtkProgressBar *progress_bar;
  GtkLabel       *message_label;
  GtkExpander    *failures_expander;
  GtkLabel       *failures_label;
};

G_DEFINE_FINAL_TYPE (SjSoundPackRow, sj_sound_pack_row, GTK_TYPE_LIST_BOX_ROW)

/**
 * sj_sound_pack_describe:
 *
 * What of a pack is downloaded, honestly: the size of the files that are
 * not downloaded is not known.
 *
 * Returns: (transfer full): "12 of 48 files downloaded (3.1 MB); 36 to
 *   download, size unknown"…
 */
char *
sj_sound_pack_describe (const SjSoundPackInfo *info)
{
  g_autofree char *size = NULL;

  g_return_val_if_fail (info != NULL, NULL);

  if (!info->counted)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file", "%u files", info->n_files), info->n_files);
  if (info->n_cached == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file, not downloaded", "%u files, none downloaded",
                                         info->n_files),
                            info->n_files);

  size = g_format_size (info->cached_bytes);
  if (info->n_cached >= info->n_files)
    /* TRANSLATORS: "All 48 files downloaded (12.4 MB)" */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file downloaded (%s)", "All %u files downloaded (%s)",
                                         info->n_files),
                            info->n_files, size);

  /* TRANSLATORS: "12 of 48 files downloaded (3.1 MB); 36 to download, size unknown" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u of %u file downloaded (%s); %u to download, size unknown",
                                       "%u of %u files downloaded (%s); %u to download, size unknown",
                                       info->n_files),
                          info->n_cached, info->n_files, size, info->n_files - info->n_cached);
}

/* "13 of 36 · 1.2 MB", on the progress bar. */
static char *
describe_progress (const SjSoundPackInfo *info)
{
  g_autofree char *size = NULL;

  if (info->state == SJ_SOUND_PACK_QUEUED)
    return g_strdup (_("Waiting…"));

  size = g_format_size (info->downloaded_bytes);
  /* TRANSLATORS: a pack's download: files done of files to fetch, and bytes fetched, e.g. "13 of 36 · 1.2 MB" */
  return g_strdup_printf (_("%u of %u · %s"), info->n_done, info->n_total, size);
}

static void
show_failures (SjSoundPackRow *self,
               GPtrArray      *failures)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *label = NULL;
  guint n = failures != NULL ? failures->len : 0;

  gtk_widget_set_visible (GTK_WIDGET (self->failures_expander), n > 0);
  if (n == 0)
    return;

  for (guint i = 0; i < MIN (n, MAX_LISTED_FAILURES); i++)
    {
      const SjSoundPackFailure *failure = g_ptr_array_index (failures, i);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, failure->message);
    }
  if (n > MAX_LISTED_FAILURES)
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "and %u more", "and %u more",
                                                 n - MAX_LISTED_FAILURES),
                              n - MAX_LISTED_FAILURES);
    }

  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file could not be downloaded",
                                        "%u files could not be downloaded", n), n);
  gtk_expander_set_label (self->failures_expander, label);
  gtk_label_set_label (self->failures_label, text->str);
}

/* A button that hides under the keyboard focus hands it on. */
static void
set_button_visible (GtkWidget *button,
                    gboolean   visible,
                    GtkWidget *successor)
{
  gboolean had_focus = gtk_widget_has_focus (button);

  gtk_widget_set_visible (button, visible);
  if (had_focus && !visible && successor != NULL && gtk_widget_get_visible (successor))
    gtk_widget_grab_focus (successor);
}

/**
 * sj_sound_pack_row_update:
 * @info: the pack, as SjSoundDownloads has it
 * @failures: (element-type SjSoundPackFailure) (nullable): the files of its
 *   last download that could not be had
 */
void
sj_sound_pack_row_update (SjSoundPackRow        *self,
                          const SjSoundPackInfo *info,
                          GPtrArray             *failures)
{
  gboolean downloading = info->state == SJ_SOUND_PACK_QUEUED || info->state == SJ_SOUND_PACK_DOWNLOADING;
  gboolean removing = info->state == SJ_SOUND_PACK_REMOVING;
  gboolean complete = info->counted && info->n_cached >= info->n_files;
  g_autofree char *subtitle = NULL;

  g_assert (SJ_IS_SOUND_PACK_ROW (self));
  g_return_if_fail (info != NULL);

  subtitle = removing ? g_strdup (_("Removing…")) : sj_sound_pack_describe (info);
  gtk_label_set_label (self->subtitle_label, subtitle);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, subtitle, -1);

  /* Cancel first, so that the focus can move onto it from Download. */
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), downloading);
  set_button_visible (GTK_WIDGET (self->download_button), !downloading && !removing && !complete,
                      downloading ? GTK_WIDGET (self->cancel_button) : GTK_WIDGET (self->remove_button));
  gtk_widget_set_visible (GTK_WIDGET (self->remove_button), !downloading && !removing && info->n_cached > 0);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->cancel_button)) && gtk_widget_has_focus (GTK_WIDGET (self->cancel_button)))
    gtk_widget_grab_focus (GTK_WIDGET (self->download_button));

  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), downloading);
  if (downloading)
    {
      g_autofree char *progress = describe_progress (info);

      gtk_progress_bar_set_fraction (self->progress_bar, info->n_total > 0 ? (double)info->n_done / info->n_total : 0.0);
      gtk_progress_bar_set_text (self->progress_bar, progress);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress_bar),
                                      GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, progress, -1);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->message_label), info->message != NULL);
  gtk_label_set_label (self->message_label, info->message != NULL ? info->message : "");
  show_failures (self, failures);
}

static void
set_pack (SjSoundPackRow *self,
          const char     *id,
          const char     *title)
{
  g_autofree char *download = NULL;
  g_autofree char *cancel = NULL;
  g_autofree char *remove = NULL;
  g_autofree char *progress = NULL;

  g_free (self->title);
  self->title = g_strdup (title);
  gtk_label_set_label (self->title_label, title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);

  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->download_button), "s", id);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->cancel_button), "s", id);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->remove_button), "s", id);

  /* TRANSLATORS: the accessible name of a pack's download button, e.g. "Download RolandTR808 for offline use" */
  download = g_strdup_printf (_("Download %s for offline use"), title);
  /* TRANSLATORS: e.g. "Cancel downloading RolandTR808" */
  cancel = g_strdup_printf (_("Cancel downloading %s"), title);
  /* TRANSLATORS: e.g. "Remove the downloaded sounds of RolandTR808" */
  remove = g_strdup_printf (_("Remove the downloaded sounds of %s"), title);
  /* TRANSLATORS: e.g. "Download of RolandTR808" */
  progress = g_strdup_printf (_("Download of %s"), title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->download_button), GTK_ACCESSIBLE_PROPERTY_LABEL, download, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->cancel_button), GTK_ACCESSIBLE_PROPERTY_LABEL, cancel, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->remove_button), GTK_ACCESSIBLE_PROPERTY_LABEL, remove, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress_bar), GTK_ACCESSIBLE_PROPERTY_LABEL, progress, -1);
}

static void
sj_sound_pack_row_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), SJ_TYPE_SOUND_PACK_ROW);

  G_OBJECT_CLASS (sj_sound_pack_row_parent_class)->dispose (object);
}

static void
sj_sound_pack_row_finalize (GObject *object)
{
  SjSoundPackRow *self = (SjSoundPackRow *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->title, g_free);

  G_OBJECT_CLASS (sj_sound_pack_row_parent_class)->finalize (object);
}

static void
sj_sound_pack_row_class_init (SjSoundPackRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_sound_pack_row_dispose;
  object_class->finalize = sj_sound_pack_row_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-sound-pack-row.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, download_button);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, remove_button);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, message_label);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, failures_expander);
  gtk_widget_class_bind_template_child (widget_class, SjSoundPackRow, failures_label);
}

static void
sj_sound_pack_row_init (SjSoundPackRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

SjSoundPackRow *
sj_sound_pack_row_new (const char *id,
                       const char *title)
{
  SjSoundPackRow *self;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (title != NULL, NULL);

  self = g_object_new (SJ_TYPE_SOUND_PACK_ROW, NULL);
  self->id = g_strdup (id);
  set_pack (self, id, title);
  return self;
}

const char *
sj_sound_pack_row_get_id (SjSoundPackRow *self)
{
  g_assert (SJ_IS_SOUND_PACK_ROW (self));

  return self->id;
}
