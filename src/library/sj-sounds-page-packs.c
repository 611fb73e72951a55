/* sj-sounds-page-packs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sounds page's two views: the sounds (sj-sounds-page.c) and the packs
 * to download for offline (SjSoundPacksView), switched by two linked toggle
 * buttons at the top of the page. The page lays its children out in a
 * column: the switch, the sounds, the packs; one of the last two shows.
 */

#include "config.h"

#include "sj-sounds-page-private.h"

static void
view_toggled_cb (SjSoundsPage    *self,
                 GtkToggleButton *button)
{
  gboolean packs;

  g_assert (SJ_IS_SOUNDS_PAGE (self));

  packs = gtk_toggle_button_get_active (self->packs_toggle);
  gtk_widget_set_visible (GTK_WIDGET (self->stack), !packs);
  gtk_widget_set_visible (GTK_WIDGET (self->packs_view), packs);
}

void
_sj_sounds_page_packs_class_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (SJ_TYPE_SOUND_PACKS_VIEW);

  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, sounds_toggle);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, packs_toggle);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, packs_view);
  gtk_widget_class_bind_template_callback (widget_class, view_toggled_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
}

void
_sj_sounds_page_packs_init (SjSoundsPage *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
}

/* Returns: whether the Packs view shows and took the focus */
gboolean
_sj_sounds_page_focus_packs (SjSoundsPage *self)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  if (!gtk_toggle_button_get_active (self->packs_toggle))
    return FALSE;
  sj_sound_packs_view_focus (self->packs_view);
  return TRUE;
}

/**
 * sj_sounds_page_set_downloads:
 *
 * Gives the Packs view the packs it lists and downloads.
 */
void
sj_sounds_page_set_downloads (SjSoundsPage     *self,
                              SjSoundDownloads *downloads)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));
  g_return_if_fail (SJ_IS_SOUND_DOWNLOADS (downloads));

  if (sj_sound_packs_view_get_downloads (self->packs_view) == NULL)
    sj_sound_packs_view_set_downloads (self->packs_view, downloads);
}

/* Shows the Packs view, with the keyboard in it. */
void
sj_sounds_page_show_packs (SjSoundsPage *self)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  gtk_toggle_button_set_active (self->packs_toggle, TRUE);
  sj_sound_packs_view_focus (self->packs_view);
}
