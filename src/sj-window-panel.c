/* sj-window-panel.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The side panel of SjWindow: showing and hiding it, the actions that open
 * its pages (Console, Reference, Sounds, Skills), and what the Reference,
 * Sounds and Skills pages ask for: inserting an example at the cursor and
 * previewing a sound through the REPL, applying a skill's example through
 * the apply pipeline. Reference and Sounds
 * search the application's SjKnowledge, Skills lists the application's
 * skills (the registry the agent uses), and the window keeps the
 * application's sounds index fed with the page's snapshots.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-window-private.h"

/* The app's sounds index follows every snapshot the page posts. */
static void
repl_sounds_changed_cb (SjWindow *self,
                        SjRepl   *repl)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  g_assert (SJ_IS_WINDOW (self));

  if (SJ_IS_APPLICATION (app) && sj_repl_get_sounds (repl) != NULL)
    sj_application_update_sounds (SJ_APPLICATION (app), sj_repl_get_sounds (repl));
}

/* The knowledge is built when one of its pages is first shown, so that
 * reading the reference never delays the start. */
static void
knowledge_page_map_cb (SjWindow  *self,
                       GtkWidget *page)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SjKnowledge *knowledge;

  g_assert (SJ_IS_WINDOW (self));

  if (!SJ_IS_APPLICATION (app) || sj_reference_page_get_knowledge (self->reference_page) != NULL)
    return;

  knowledge = sj_application_get_knowledge (SJ_APPLICATION (app));
  sj_reference_page_set_knowledge (self->reference_page, knowledge);
  sj_sounds_page_set_knowledge (self->sounds_page, knowledge);
}

/* The skills are the application's, as the agent's are: what the page
 * enables or imports is what the next turn uses. */
static void
skills_page_map_cb (SjWindow     *self,
                    SjSkillsPage *page)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  g_assert (SJ_IS_WINDOW (self));

  if (SJ_IS_APPLICATION (app) && sj_skills_page_get_registry (page) == NULL)
    sj_skills_page_set_registry (page, sj_application_get_skills (SJ_APPLICATION (app)));
}

static void
insert_text_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (sj_repl_insert_text_finish (SJ_REPL (object), result, &error))
    /* Straight back to the code: Ctrl+Enter plays it, Ctrl+Z takes it back. */
    gtk_widget_grab_focus (sj_repl_get_widget (self->repl));
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The example could not be inserted: %s"), error->message);

      _sj_window_show_toast (self, text, NULL, NULL);
    }
}

static void
reference_insert_requested_cb (SjWindow        *self,
                               const char      *text,
                               SjReferencePage *page)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_repl_insert_text_async (self->repl, text, self->cancellable, insert_text_cb, g_object_ref (self));
}

typedef struct
{
  SjWindow *window;
  char     *name;
} Preview;

static void
preview_free (Preview *preview)
{
  g_object_unref (preview->window);
  g_free (preview->name);
  g_free (preview);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Preview, preview_free)

/* The page stops the row's spinner (or plays the sound once more) and
 * says why a preview failed. */
static void
preview_sound_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Preview) preview = user_data;
  SjWindow *self = preview->window;
  g_autoptr(GError) error = NULL;
  g_autofree char *failure = NULL;

  /* A closed window cancels: its page may be gone. */
  if (!sj_repl_preview_sound_finish (SJ_REPL (object), result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (self->sounds_page == NULL)
    return;
  failure = sj_sounds_page_finish_preview (self->sounds_page, preview->name, error);
  if (failure != NULL)
    _sj_window_show_toast (self, failure, NULL, NULL);
}

static void
sounds_preview_requested_cb (SjWindow     *self,
                             const char   *name,
                             SjSoundsPage *page)
{
  Preview *preview = g_new0 (Preview, 1);

  g_assert (SJ_IS_WINDOW (self));

  preview->window = g_object_ref (self);
  preview->name = g_strdup (name);
  sj_repl_preview_sound_async (self->repl, name, self->cancellable, preview_sound_cb, preview);
}

/* Opening a page that searches puts the keyboard in its search entry. */
static void
focus_panel_page (SjWindow *self)
{
  const char *name = adw_view_stack_get_visible_child_name (self->panel_stack);

  /* Restoring the last page at start-up leaves the keyboard in the editor. */
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)) || !gtk_widget_get_visible (self->panel))
    return;

  if (g_strcmp0 (name, "reference") == 0)
    sj_reference_page_focus_search (self->reference_page);
  else if (g_strcmp0 (name, "sounds") == 0)
    sj_sounds_page_focus_search (self->sounds_page);
  else if (g_strcmp0 (name, "skills") == 0)
    sj_skills_page_focus_search (self->skills_page);
}

static void
panel_page_changed_cb (SjWindow     *self,
                       GParamSpec   *pspec,
                       AdwViewStack *stack)
{
  g_assert (SJ_IS_WINDOW (self));

  focus_panel_page (self);
}

static void
show_panel_change_state (GSimpleAction *action,
                         GVariant      *value,
                         gpointer       user_data)
{
  SjWindow *self = user_data;
  gboolean visible = g_variant_get_boolean (value);

  g_assert (SJ_IS_WINDOW (self));

  g_simple_action_set_state (action, value);

  /* Hiding the panel that has the keyboard gives it to the editor; GTK
   * would leave it on the divider, where no key does anything. */
  if (!visible && gtk_widget_get_visible (self->panel))
    {
      GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

      gtk_widget_set_visible (self->panel, FALSE);
      if (focus != NULL && gtk_widget_is_ancestor (focus, self->panel))
        gtk_widget_grab_focus (sj_repl_get_widget (self->repl));
    }
  else
    gtk_widget_set_visible (self->panel, visible);

  g_settings_set_boolean (self->settings, "panel-visible", visible);
}

static void
show_console_action (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, "console");
}

static void
show_panel_page_action (GSimpleAction *action,
                        GVariant      *param,
                        gpointer       user_data)
{
  SjWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));

  g_assert (SJ_IS_WINDOW (self));

  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, name + strlen ("show-"));
  focus_panel_page (self);
}

/* The Sounds page's Packs view ("Show Packs" in the downloads indicator). */
static void
show_sound_packs_action (GSimpleAction *action,
                         GVariant      *param,
                         gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, "sounds");
  sj_sounds_page_show_packs (self->sounds_page);
}

/* One skill in the Skills page (a chip naming the skill can open it). */
static void
show_skill_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, "skills");
  skills_page_map_cb (self, self->skills_page);
  sj_skills_page_show_skill (self->skills_page, g_variant_get_string (param, NULL));
}

static const GActionEntry panel_entries[] = {
  { "show-panel", NULL, NULL, "true", show_panel_change_state },
  { "show-console", show_console_action },
  { "show-reference", show_panel_page_action },
  { "show-sounds", show_panel_page_action },
  { "show-skills", show_panel_page_action },
  { "show-skill", show_skill_action, "s" },
  { "show-sound-packs", show_sound_packs_action },
};

void
_sj_window_panel_class_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (SJ_TYPE_PANEL_SWITCHER);
  g_type_ensure (SJ_TYPE_REFERENCE_PAGE);
  g_type_ensure (SJ_TYPE_SOUNDS_PAGE);
  g_type_ensure (SJ_TYPE_SKILLS_PAGE);

  gtk_widget_class_bind_template_child (widget_class, SjWindow, skills_page);

  gtk_widget_class_bind_template_callback (widget_class, reference_insert_requested_cb);
  gtk_widget_class_bind_template_callback (widget_class, sounds_preview_requested_cb);
}

/* Runs once the template and the REPL exist, before the window state is
 * restored (which sets the panel's actions). */
void
_sj_window_panel_init (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  g_action_map_add_action_entries (G_ACTION_MAP (self), panel_entries, G_N_ELEMENTS (panel_entries), self);

  g_signal_connect_object (self->repl, "sounds-changed", G_CALLBACK (repl_sounds_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->panel_stack, "notify::visible-child", G_CALLBACK (panel_page_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->reference_page, "map", G_CALLBACK (knowledge_page_map_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sounds_page, "map", G_CALLBACK (knowledge_page_map_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->skills_page, "map", G_CALLBACK (skills_page_map_cb), self, G_CONNECT_SWAPPED);
}

SjSkillsPage *
_sj_window_get_skills_page (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->skills_page;
}
