/* sj-skill-registry-monitor.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Following the musician's skills on disk: a skill written, edited in a
 * text editor, copied in or deleted is loaded again without a restart.
 * The user root and every skill folder in it are watched (a change inside
 * a folder does not show on its parent), and a burst of changes (an
 * editor's save writes and renames several files) reloads once, a moment
 * after the last of them. The bundled skills are read-only and are not
 * watched.
 */

#include "config.h"

#include "sj-skill-registry-private.h"

#define RELOAD_DELAY_MS 250

static void watch (SjSkillRegistry *self);

static gboolean
reload_cb (gpointer user_data)
{
  SjSkillRegistry *self = user_data;

  self->reload_id = 0;
  sj_skill_registry_reload (self);
  /* Folders come and go: watch the ones there are now. */
  watch (self);

  return G_SOURCE_REMOVE;
}

static void
changed_cb (GFileMonitor      *monitor,
            GFile             *file,
            GFile             *other,
            GFileMonitorEvent  event,
            SjSkillRegistry   *self)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED || event == G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT)
    return;

  g_clear_handle_id (&self->reload_id, g_source_remove);
  self->reload_id = g_timeout_add (RELOAD_DELAY_MS, reload_cb, self);
}

static void
add_monitor (SjSkillRegistry *self,
             GFile           *dir)
{
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      g_debug ("Not following the skills in %s: %s", g_file_peek_path (dir), error->message);
      return;
    }
  g_signal_connect_object (monitor, "changed", G_CALLBACK (changed_cb), self, 0);
  g_ptr_array_add (self->monitors, monitor);
}

static void
watch (SjSkillRegistry *self)
{
  g_autoptr(GFile) root = NULL;
  g_autoptr(GFileEnumerator) children = NULL;

  for (guint i = 0; i < self->monitors->len; i++)
    g_file_monitor_cancel (g_ptr_array_index (self->monitors, i));
  g_ptr_array_set_size (self->monitors, 0);

  if (self->user_root == NULL)
    return;

  root = g_file_new_for_path (self->user_root);
  add_monitor (self, root);

  children = g_file_enumerate_children (root, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  for (guint n = 0; children != NULL && n < SJ_SKILL_REGISTRY_MAX_SKILLS; n++)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, NULL) || info == NULL)
        break;
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY && g_file_info_get_name (info)[0] != '.')
        add_monitor (self, child);
    }
}

/**
 * _sj_skill_registry_start_monitor:
 *
 * Follows the user root from now on (the app's registry does; the tests
 * that need it ask for it).
 */
void
_sj_skill_registry_start_monitor (SjSkillRegistry *self)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  if (self->monitors == NULL)
    self->monitors = g_ptr_array_new_with_free_func (g_object_unref);
  watch (self);
}

void
_sj_skill_registry_stop_monitor (SjSkillRegistry *self)
{
  g_clear_handle_id (&self->reload_id, g_source_remove);
  for (guint i = 0; self->monitors != NULL && i < self->monitors->len; i++)
    g_file_monitor_cancel (g_ptr_array_index (self->monitors, i));
  g_clear_pointer (&self->monitors, g_ptr_array_unref);
}
