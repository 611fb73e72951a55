/* sj-window-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's part of the user's own folders of samples: the page, the
 * Sounds page and the dry-run get them, and the Console says once per
 * folder which files cannot be played, or that a folder cannot be read
 * (it was moved or deleted, or a drive is not there): the Sounds page
 * shows it too, but only to someone who opens it, and a sound that is
 * silent in the music is first looked for in the Console. And the sample
 * maps the code's own samples() loads: the page gets them, and the Console
 * says each of their files that cannot be had.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-log-entry.h"
#include "sj-window-private.h"

/* How many file names the Console lists of one folder. */
#define MAX_CONSOLE_FILES 20

/* The sentence the Console says about @folder, or NULL when all is well
 * (or it is still being read). */
static char *
describe_folder (SjUserFolder *folder)
{
  g_autofree char *problems = NULL;

  switch (sj_user_folder_get_state (folder))
    {
    case SJ_USER_FOLDER_FAILED:
      /* TRANSLATORS: %s is a folder's name, then why it cannot be read */
      return g_strdup_printf (_("Your samples: the folder “%s” cannot be read, its sounds are gone: %s"),
                              sj_user_folder_get_name (folder), sj_user_folder_get_error (folder)->message);

    case SJ_USER_FOLDER_READY:
      if ((problems = sj_user_folder_describe_problems (folder, MAX_CONSOLE_FILES)) == NULL)
        return NULL;
      /* TRANSLATORS: %s is a folder's name, then "3 files cannot be played: …" */
      return g_strdup_printf (_("Your samples: in “%s”, %s"), sj_user_folder_get_name (folder), problems);

    case SJ_USER_FOLDER_SCANNING:
    default:
      return NULL;
    }
}

/* What the Console has said about each folder is kept, so that reading a
 * folder again, or another folder changing, does not say it twice. */
static void
report_problems (SjWindow      *self,
                 SjUserSamples *samples)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < sj_user_samples_get_n_folders (samples); i++)
    {
      SjUserFolder *folder = sj_user_samples_get_folder (samples, i);
      const char *id = sj_user_folder_get_id (folder);
      const char *said = self->samples_reported != NULL ? g_hash_table_lookup (self->samples_reported, id) : NULL;
      g_autofree char *text = NULL;

      if (sj_user_folder_get_state (folder) == SJ_USER_FOLDER_SCANNING)
        {
          /* Not read yet: what was said stands. */
          if (said != NULL)
            g_hash_table_insert (seen, g_strdup (id), g_strdup (said));
          continue;
        }

      text = describe_folder (folder);
      if (text != NULL && g_strcmp0 (text, said) != 0)
        {
          g_autoptr(SjLogEntry) entry = sj_log_entry_new (SJ_LOG_LEVEL_WARNING, text);

          sj_console_page_append (self->console_page, entry);
        }
      if (text != NULL)
        g_hash_table_insert (seen, g_strdup (id), g_steal_pointer (&text));
    }

  g_clear_pointer (&self->samples_reported, g_hash_table_unref);
  self->samples_reported = g_steal_pointer (&seen);
}

/* The dry-run registers the user's folders of samples as the page does. */
static void
user_samples_changed_cb (SjWindow      *self,
                         SjUserSamples *samples)
{
  g_autoptr(JsonNode) packs = sj_user_samples_dup_packs (samples);

  g_assert (SJ_IS_WINDOW (self));

  sj_dry_run_set_user_samples (self->dry_run, packs);
  report_problems (self, samples);
}

void
_sj_window_samples_connect (SjWindow      *self,
                            SjUserSamples *samples)
{
  g_assert (SJ_IS_WINDOW (self));
  g_return_if_fail (SJ_IS_USER_SAMPLES (samples));

  sj_repl_set_user_samples (self->repl, samples);
  sj_sounds_page_set_user_samples (self->sounds_page, samples);
  g_signal_connect_object (samples, "changed", G_CALLBACK (user_samples_changed_cb), self, G_CONNECT_SWAPPED);
  user_samples_changed_cb (self, samples);
}

/* One line per file of a sample map the code loads that cannot be had. */
static void
remote_load_failed_cb (SjWindow        *self,
                       const char      *url,
                       const GError    *error,
                       const char      *message,
                       SjRemoteSamples *remote)
{
  g_autoptr(SjLogEntry) entry = NULL;
  /* Offline is a state, not a fault. */
  gboolean offline = g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE);

  g_assert (SJ_IS_WINDOW (self));

  entry = sj_log_entry_new (offline ? SJ_LOG_LEVEL_WARNING : SJ_LOG_LEVEL_ERROR, message);
  sj_console_page_append (self->console_page, entry);
}

void
_sj_window_remote_connect (SjWindow        *self,
                           SjRemoteSamples *remote)
{
  g_assert (SJ_IS_WINDOW (self));
  g_return_if_fail (SJ_IS_REMOTE_SAMPLES (remote));

  sj_repl_set_remote_samples (self->repl, remote);
  g_signal_connect_object (remote, "load-failed", G_CALLBACK (remote_load_failed_cb), self, G_CONNECT_SWAPPED);
}

void
_sj_window_samples_dispose (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  g_clear_pointer (&self->samples_reported, g_hash_table_unref);
}
