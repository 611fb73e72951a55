/* sj-downloads-indicator.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The header bar's sign that sounds are being downloaded for offline: a
 * small progress pie in a menu button, shown only while a pack downloads.
 * Its popover lists the packs downloading, each with its progress and a
 * Cancel button, and "Show Packs" opens the Sounds page's Packs view
 * (win.show-sound-packs). A screen reader hears "Downloading sounds, 40 %"
 * on the button; the same is its tooltip.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-downloads-indicator.h"

typedef struct
{
  GtkWidget      *box;
  GtkProgressBar *progress;
} Entry;

struct _SjDownloadsIndicator
{
  GtkWidget         parent_instance;

  SjSoundDownloads *downloads;
  GHashTable       *entries;      /* pack id → Entry, for the packs downloading */
  int               percent;

  /* Template widgets */
  GtkMenuButton    *menu_button;
  GtkDrawingArea   *pie;
  GtkPopover       *popover;
  GtkBox           *list_box;
};

G_DEFINE_FINAL_TYPE (SjDownloadsIndicator, sj_downloads_indicator, GTK_TYPE_WIDGET)

static void
draw_pie (GtkDrawingArea *area,
          cairo_t        *cr,
          int             width,
          int             height,
          gpointer        user_data)
{
  SjDownloadsIndicator *self = user_data;
  double fraction = self->downloads != NULL ? sj_sound_downloads_get_fraction (self->downloads) : 0.0;
  double radius = MIN (width, height) / 2.0 - 1.0;
  double x = width / 2.0, y = height / 2.0;
  GdkRGBA color;

  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &color);

  /* The whole, faint; what is done, solid, clockwise from the top. */
  cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha * 0.25);
  cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
  cairo_fill (cr);

  if (fraction <= 0.0)
    return;
  gdk_cairo_set_source_rgba (cr, &color);
  cairo_move_to (cr, x, y);
  cairo_arc (cr, x, y, radius, -G_PI / 2, -G_PI / 2 + 2 * G_PI * fraction);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
update_button (SjDownloadsIndicator *self)
{
  gboolean active = sj_sound_downloads_get_active (self->downloads);
  int percent = (int)(sj_sound_downloads_get_fraction (self->downloads) * 100);
  g_autofree char *label = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self), active);
  if (!active)
    gtk_popover_popdown (self->popover);

  gtk_widget_queue_draw (GTK_WIDGET (self->pie));
  if (percent == self->percent)
    return;
  self->percent = percent;

  /* TRANSLATORS: the header bar's download indicator, e.g. "Downloading sounds, 40 %" */
  label = g_strdup_printf (_("Downloading sounds, %d %%"), percent);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->menu_button), label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjDownloadsIndicator *self = SJ_DOWNLOADS_INDICATOR (widget);

  if (self->downloads != NULL)
    sj_sound_downloads_cancel (self->downloads, g_variant_get_string (param, NULL));
}

static Entry *
add_entry (SjDownloadsIndicator  *self,
           const SjSoundPackInfo *info)
{
  Entry *entry = g_new0 (Entry, 1);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (info->title);
  GtkWidget *cancel = gtk_button_new_from_icon_name ("process-stop-symbolic");
  g_autofree char *cancel_label = NULL;

  entry->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  entry->progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_add_css_class (cancel, "flat");
  gtk_widget_set_tooltip_text (cancel, _("Cancel Download"));
  /* TRANSLATORS: e.g. "Cancel downloading RolandTR808" */
  cancel_label = g_strdup_printf (_("Cancel downloading %s"), info->title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (cancel), GTK_ACCESSIBLE_PROPERTY_LABEL, cancel_label, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry->progress), GTK_ACCESSIBLE_PROPERTY_LABEL, info->title, -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "indicator.cancel");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (cancel), "s", info->id);

  gtk_box_append (GTK_BOX (row), title);
  gtk_box_append (GTK_BOX (row), cancel);
  gtk_box_append (GTK_BOX (entry->box), row);
  gtk_box_append (GTK_BOX (entry->box), GTK_WIDGET (entry->progress));
  gtk_box_append (self->list_box, entry->box);
  g_hash_table_insert (self->entries, g_strdup (info->id), entry);

  return entry;
}

static void
remove_entry (gpointer data)
{
  Entry *entry = data;
  GtkWidget *parent = gtk_widget_get_parent (entry->box);

  if (parent != NULL)
    gtk_box_remove (GTK_BOX (parent), entry->box);
  g_free (entry);
}

static void
pack_changed_cb (SjDownloadsIndicator *self,
                 const char           *id,
                 SjSoundDownloads     *downloads)
{
  const SjSoundPackInfo *info = sj_sound_downloads_get_pack (downloads, id);
  gboolean downloading = info->state == SJ_SOUND_PACK_QUEUED || info->state == SJ_SOUND_PACK_DOWNLOADING;
  Entry *entry = g_hash_table_lookup (self->entries, id);

  g_assert (SJ_IS_DOWNLOADS_INDICATOR (self));

  if (!downloading)
    {
      g_hash_table_remove (self->entries, id);
      return;
    }

  if (entry == NULL)
    entry = add_entry (self, info);
  gtk_progress_bar_set_fraction (entry->progress, info->n_total > 0 ? (double)info->n_done / info->n_total : 0.0);
}

static void
downloads_changed_cb (SjDownloadsIndicator *self,
                      GParamSpec           *pspec,
                      SjSoundDownloads     *downloads)
{
  g_assert (SJ_IS_DOWNLOADS_INDICATOR (self));

  update_button (self);
}

static void
sj_downloads_indicator_dispose (GObject *object)
{
  SjDownloadsIndicator *self = (SjDownloadsIndicator *)object;
  GtkWidget *child;

  if (self->downloads != NULL)
    g_signal_handlers_disconnect_by_data (self->downloads, self);
  g_clear_object (&self->downloads);
  g_clear_pointer (&self->entries, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_DOWNLOADS_INDICATOR);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (sj_downloads_indicator_parent_class)->dispose (object);
}

static void
sj_downloads_indicator_class_init (SjDownloadsIndicatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_downloads_indicator_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/strudeljam/StrudelJam/ui/sj-downloads-indicator.ui");
  gtk_widget_class_bind_template_child (widget_class, SjDownloadsIndicator, menu_button);
  gtk_widget_class_bind_template_child (widget_class, SjDownloadsIndicator, pie);
  gtk_widget_class_bind_template_child (widget_class, SjDownloadsIndicator, popover);
  gtk_widget_class_bind_template_child (widget_class, SjDownloadsIndicator, list_box);

  gtk_widget_class_install_action (widget_class, "indicator.cancel", "s", cancel_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjdownloadsindicator");
}

static void
sj_downloads_indicator_init (SjDownloadsIndicator *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->percent = -1;
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, remove_entry);
  gtk_drawing_area_set_draw_func (self->pie, draw_pie, self, NULL);
}

/**
 * sj_downloads_indicator_set_downloads:
 *
 * Follows @downloads: shown while any pack downloads.
 */
void
sj_downloads_indicator_set_downloads (SjDownloadsIndicator *self,
                                      SjSoundDownloads     *downloads)
{
  const char * const *packs;

  g_assert (SJ_IS_DOWNLOADS_INDICATOR (self));
  g_return_if_fail (SJ_IS_SOUND_DOWNLOADS (downloads));
  g_return_if_fail (self->downloads == NULL);

  self->downloads = g_object_ref (downloads);
  g_signal_connect_object (downloads, "notify::active", G_CALLBACK (downloads_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (downloads, "notify::fraction", G_CALLBACK (downloads_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (downloads, "pack-changed", G_CALLBACK (pack_changed_cb), self, G_CONNECT_SWAPPED);

  packs = sj_sound_downloads_get_packs (downloads);
  for (guint i = 0; packs[i] != NULL; i++)
    pack_changed_cb (self, packs[i], downloads);
  update_button (self);
}
