/* test-code-store-faults.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjCodeStore when things go wrong (issue 27): any content is saved as is
 * (empty, one byte, 5 MB, invalid UTF-8), and a save that fails never blocks
 * and never damages the previous file. Each fault is real where it can be:
 * a 64 KiB tmpfs for a full disk, a tmpfs remounted read-only, a folder
 * removed, the writing process killed with SIGKILL in the middle of a write.
 * Permission denied cannot be made real as root (root ignores permission
 * bits), so it is injected through the store's write hook, as is a write
 * that never finishes. The mounts need root; without it those cases skip.
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sj-code-store-private.h"
#include "sj-test-files.h"

typedef struct
{
  char *dir;
  char *path;
  char *mount;  /* a tmpfs mounted for the test, or NULL */
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-code-faults-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->path = g_build_filename (fixture->dir, "strudel-jam", "current.strudel.js", NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  if (fixture->mount != NULL)
    g_assert_cmpint (umount2 (fixture->mount, MNT_DETACH), ==, 0);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->path);
  g_free (fixture->mount);
}

/* Mounts a tmpfs of @size bytes as the code's folder. */
static gboolean
mount_tmpfs (Fixture *fixture,
             gsize    size)
{
  g_autofree char *options = g_strdup_printf ("size=%" G_GSIZE_FORMAT ",mode=0700", size);
  g_autofree char *mount_dir = g_path_get_dirname (fixture->path);

  g_assert_cmpint (g_mkdir_with_parents (mount_dir, 0700), ==, 0);
  if (mount ("tmpfs", mount_dir, "tmpfs", 0, options) != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot mount a tmpfs: %s", g_strerror (errno));
      g_test_skip (why);
      return FALSE;
    }
  fixture->mount = g_steal_pointer (&mount_dir);
  return TRUE;
}

static SjCodeStore *
store_for (Fixture *fixture)
{
  g_autoptr(GFile) file = g_file_new_for_path (fixture->path);
  SjCodeStore *store = sj_code_store_new (file);

  _sj_code_store_set_delay (store, 10);
  return store;
}

static void
record_error_cb (SjCodeStore *store,
                 GError      *error,
                 gpointer     user_data)
{
  GError **out = user_data;

  g_clear_error (out);
  *out = g_error_copy (error);
}

static void
count_cb (gpointer instance,
          gpointer user_data)
{
  (*(guint *)user_data)++;
}

/* Saves @code through the debounced path; returns the failure or NULL. */
static GError *
save (SjCodeStore *store,
      const char  *code)
{
  GError *failure = NULL;
  guint saved = 0;
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  gulong failed_id = g_signal_connect (store, "save-failed", G_CALLBACK (record_error_cb), &failure);
  gulong saved_id = g_signal_connect (store, "saved", G_CALLBACK (count_cb), &saved);

  sj_code_store_queue_save (store, code);
  while (saved == 0 && failure == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }

  g_signal_handler_disconnect (store, failed_id);
  g_signal_handler_disconnect (store, saved_id);
  return failure;
}

static void
assert_file_is (const char *path,
                const char *expected,
                gsize       expected_length)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_cmpmem (contents, length, expected, expected_length);
}

/* No temporary file is left next to the code. */
static void
assert_no_temps (const char *path)
{
  g_autofree char *dir_path = g_path_get_dirname (path);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_cmpstr (name, ==, "current.strudel.js");
}

static void
test_any_content (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(SjCodeStore) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *big = g_malloc (5 * 1024 * 1024 + 1);
  g_autofree char *code = NULL;
  const char invalid[] = "s(\"\xff\xfe bd\")";

  /* The bug: emptying the editor saved 0 bytes through GIO with a
   * NULL buffer; the write never finished and nothing was saved again. */
  g_assert_null (save (store, "s(\"bd\")"));
  g_assert_null (save (store, ""));
  assert_file_is (fixture->path, "", 0);
  g_assert_false (sj_code_store_get_pending (store));

  /* ... and what is typed afterwards is saved. */
  g_assert_null (save (store, "s"));
  assert_file_is (fixture->path, "s", 1);
  g_assert_null (save (store, "s(\"hh*8\")"));
  assert_file_is (fixture->path, "s(\"hh*8\")", strlen ("s(\"hh*8\")"));

  /* 5 MB, byte for byte. */
  memset (big, 'a', 5 * 1024 * 1024);
  big[5 * 1024 * 1024] = '\0';
  g_assert_null (save (store, big));
  assert_file_is (fixture->path, big, 5 * 1024 * 1024);

  /* Bytes that are not UTF-8 are saved as given, never dropped. (The page
   * hands C its text as a JSON string, so it is UTF-8 and ends at the
   * first NUL; the store itself takes any bytes.) */
  g_assert_null (save (store, invalid));
  assert_file_is (fixture->path, invalid, strlen (invalid));

  /* Empty again, by the flush at shutdown this time. */
  sj_code_store_queue_save (store, "");
  g_assert_true (sj_code_store_flush (store, &error));
  g_assert_no_error (error);
  assert_file_is (fixture->path, "", 0);
  assert_no_temps (fixture->path);

  /* An empty file is the musician's (empty) code, not a first run. */
  reloaded = store_for (fixture);
  code = sj_code_store_load (reloaded, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (code, ==, "");
}

static void
test_disk_full (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = NULL;
  g_autoptr(GError) failure = NULL;
  g_autofree char *big = g_strnfill (200 * 1024, 'x');

  if (!mount_tmpfs (fixture, 64 * 1024))
    return;

  store = store_for (fixture);
  g_assert_null (save (store, "s(\"old\")"));

  /* 200 KiB do not fit in 64 KiB: the save fails, says why, and the file
   * keeps the previous text, whole. */
  failure = save (store, big);
  g_assert_error (failure, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_assert_cmpstr (failure->message, ==, g_strerror (ENOSPC));
  assert_file_is (fixture->path, "s(\"old\")", strlen ("s(\"old\")"));
  assert_no_temps (fixture->path);
  g_assert_true (sj_code_store_get_pending (store));

  /* Retried on the next edit, which fits. */
  g_clear_error (&failure);
  g_assert_null (save (store, "s(\"new\")"));
  assert_file_is (fixture->path, "s(\"new\")", strlen ("s(\"new\")"));
  g_assert_false (sj_code_store_get_pending (store));
}

static void
test_read_only (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = NULL;
  g_autoptr(GError) failure = NULL;
  g_autoptr(GError) error = NULL;

  if (!mount_tmpfs (fixture, 1024 * 1024))
    return;

  store = store_for (fixture);
  g_assert_null (save (store, "s(\"old\")"));
  g_assert_cmpint (mount (NULL, fixture->mount, NULL, MS_REMOUNT | MS_RDONLY, NULL), ==, 0);

  failure = save (store, "s(\"new\")");
  g_assert_error (failure, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  assert_file_is (fixture->path, "s(\"old\")", strlen ("s(\"old\")"));

  /* The flush at shutdown fails too, at once, and keeps the text. */
  g_assert_false (sj_code_store_flush (store, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  g_assert_true (sj_code_store_get_pending (store));

  g_assert_cmpint (mount (NULL, fixture->mount, NULL, MS_REMOUNT, NULL), ==, 0);
  g_clear_error (&failure);
  g_assert_null (save (store, "s(\"newer\")"));
  assert_file_is (fixture->path, "s(\"newer\")", strlen ("s(\"newer\")"));
}

static gboolean
deny_hook (const char  *temp_path,
           gpointer     user_data,
           GError     **error)
{
  g_assert_true (g_file_test (temp_path, G_FILE_TEST_IS_REGULAR));
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, g_strerror (EACCES));
  return FALSE;
}

static void
test_permission_denied (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) failure = NULL;

  g_assert_null (save (store, "s(\"old\")"));

  /* Injected in the middle of the write: half of the new text is in the
   * temporary file, which goes; the code file is untouched. */
  _sj_code_store_set_write_hook (store, deny_hook, NULL);
  failure = save (store, "s(\"new\")");
  g_assert_error (failure, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  assert_file_is (fixture->path, "s(\"old\")", strlen ("s(\"old\")"));
  assert_no_temps (fixture->path);

  _sj_code_store_set_write_hook (store, NULL, NULL);
  g_clear_error (&failure);
  g_assert_null (save (store, "s(\"newer\")"));
  assert_file_is (fixture->path, "s(\"newer\")", strlen ("s(\"newer\")"));
}

static void
test_folder_removed (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) failure = NULL;
  g_autofree char *folder = g_path_get_dirname (fixture->path);

  g_assert_null (save (store, "s(\"old\")"));

  /* The folder goes while the app runs: it is made again. */
  sj_test_remove_tree (folder);
  g_assert_null (save (store, "s(\"new\")"));
  assert_file_is (fixture->path, "s(\"new\")", strlen ("s(\"new\")"));

  /* Removed and replaced by something that is no folder: the save fails,
   * and is retried once the way is clear. */
  sj_test_remove_tree (folder);
  g_assert_true (g_file_set_contents (folder, "in the way", -1, NULL));
  failure = save (store, "s(\"newer\")");
  g_assert_error (failure, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
  g_assert_cmpint (g_unlink (folder), ==, 0);
  g_clear_error (&failure);
  g_assert_null (save (store, "s(\"newest\")"));
  assert_file_is (fixture->path, "s(\"newest\")", strlen ("s(\"newest\")"));
}

/* A write that never finishes until the test says so. */
typedef struct
{
  GMutex   mutex;
  GCond    cond;
  gboolean entered;
  gboolean released;
} Stall;

static gboolean
stall_hook (const char  *temp_path,
            gpointer     user_data,
            GError     **error)
{
  Stall *stall = user_data;

  g_mutex_lock (&stall->mutex);
  stall->entered = TRUE;
  g_cond_broadcast (&stall->cond);
  while (!stall->released)
    g_cond_wait (&stall->cond, &stall->mutex);
  g_mutex_unlock (&stall->mutex);
  return TRUE;
}

static void
test_stuck_write (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) error = NULL;
  Stall stall = { 0 };
  guint saved = 0;
  gint64 start;

  g_mutex_init (&stall.mutex);
  g_cond_init (&stall.cond);

  g_assert_null (save (store, "s(\"old\")"));
  _sj_code_store_set_write_hook (store, stall_hook, &stall);
  _sj_code_store_set_flush_timeout (store, 300);
  g_signal_connect (store, "saved", G_CALLBACK (count_cb), &saved);

  sj_code_store_queue_save (store, "s(\"new\")");
  g_mutex_lock (&stall.mutex);
  while (!stall.entered)
    {
      g_mutex_unlock (&stall.mutex);
      g_main_context_iteration (NULL, FALSE);
      g_mutex_lock (&stall.mutex);
      if (!stall.entered)
        g_cond_wait_until (&stall.cond, &stall.mutex, g_get_monotonic_time () + 10 * G_TIME_SPAN_MILLISECOND);
    }
  g_mutex_unlock (&stall.mutex);

  /* The write is stuck: the window goes on (edits queue), and the flush
   * at shutdown gives up after its deadline instead of waiting forever. */
  sj_code_store_queue_save (store, "s(\"newer\")");
  start = g_get_monotonic_time ();
  g_assert_false (sj_code_store_flush (store, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_true (sj_code_store_get_pending (store));
  assert_file_is (fixture->path, "s(\"old\")", strlen ("s(\"old\")"));

  /* The disk answers again: the writes land in order, newest last. */
  _sj_code_store_set_flush_timeout (store, 10000);
  g_mutex_lock (&stall.mutex);
  stall.released = TRUE;
  g_cond_broadcast (&stall.cond);
  g_mutex_unlock (&stall.mutex);
  g_clear_error (&error);
  g_assert_true (sj_code_store_flush (store, &error));
  g_assert_no_error (error);
  assert_file_is (fixture->path, "s(\"newer\")", strlen ("s(\"newer\")"));

  /* The stuck save reports late; it changes nothing. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  assert_file_is (fixture->path, "s(\"newer\")", strlen ("s(\"newer\")"));
  g_assert_false (sj_code_store_get_pending (store));

  g_mutex_clear (&stall.mutex);
  g_cond_clear (&stall.cond);
}

/* The child's hook: tell the parent that half the text is written, then
 * wait for SIGKILL. */
static gboolean
announce_hook (const char  *temp_path,
               gpointer     user_data,
               GError     **error)
{
  g_print ("%s\n", temp_path);
  fflush (stdout);
  for (;;)
    pause ();
  return TRUE;
}

static int
run_writer_child (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(SjCodeStore) store = sj_code_store_new (file);
  g_autofree char *big = g_strnfill (5 * 1024 * 1024, 'n');

  _sj_code_store_set_write_hook (store, announce_hook, NULL);
  _sj_code_store_set_flush_timeout (store, G_MAXINT);
  sj_code_store_queue_save (store, big);
  sj_code_store_flush (store, NULL);
  return 1;
}

static void
test_killed_mid_write (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(SjCodeStore) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GIOChannel) channel = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *temp = NULL;
  g_autofree char *code = NULL;
  const char *argv[] = { self_path, "--writer-child", fixture->path, NULL };
  GPid pid;
  int out_fd;
  int status;

  g_assert_null (save (store, "s(\"old\")"));

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                           &pid, NULL, &out_fd, NULL, &error));
  g_assert_no_error (error);
  channel = g_io_channel_unix_new (out_fd);
  g_io_channel_set_close_on_unref (channel, TRUE);
  g_assert_cmpint (g_io_channel_read_line (channel, &temp, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
  g_strchomp (temp);

  /* Half of the 5 MB are in the temporary file when the process dies. */
  g_assert_true (g_file_test (temp, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_spawn_close_pid (pid);

  /* The code file is the old text, whole. */
  assert_file_is (fixture->path, "s(\"old\")", strlen ("s(\"old\")"));

  /* The next start loads it, and its first save clears the leftover. */
  reloaded = store_for (fixture);
  code = sj_code_store_load (reloaded, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (code, ==, "s(\"old\")");
  g_assert_null (save (reloaded, "s(\"after\")"));
  g_assert_false (g_file_test (temp, G_FILE_TEST_EXISTS));
  assert_no_temps (fixture->path);
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 3 && g_str_equal (argv[1], "--writer-child"))
    return run_writer_child (argv[2]);

  g_test_init (&argc, &argv, NULL);

  g_test_add ("/code-store/any-content", Fixture, NULL, fixture_setup, test_any_content, fixture_teardown);
  g_test_add ("/code-store/fault/disk-full", Fixture, NULL, fixture_setup, test_disk_full, fixture_teardown);
  g_test_add ("/code-store/fault/read-only", Fixture, NULL, fixture_setup, test_read_only, fixture_teardown);
  g_test_add ("/code-store/fault/permission-denied", Fixture, NULL, fixture_setup, test_permission_denied,
              fixture_teardown);
  g_test_add ("/code-store/fault/folder-removed", Fixture, NULL, fixture_setup, test_folder_removed,
              fixture_teardown);
  g_test_add ("/code-store/fault/stuck-write", Fixture, NULL, fixture_setup, test_stuck_write, fixture_teardown);
  g_test_add ("/code-store/fault/killed-mid-write", Fixture, NULL, fixture_setup, test_killed_mid_write,
              fixture_teardown);

  return g_test_run ();
}
