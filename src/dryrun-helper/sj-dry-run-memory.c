/* sj-dry-run-memory.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A memory limit for dry-runs. Code such as `new Array(6e7)` takes half a
 * gigabyte well within the app's 500 ms timeout. An address-space limit
 * (RLIMIT_AS) cannot stop it: JavaScriptCore reserves some 70 GB of
 * address space when it starts (its heap, Gigacage, the JIT's region), so
 * it cannot start under any useful limit, and a limit set after start-up
 * stops nothing, because the heap then grows inside regions already
 * reserved (measured: the same 529 MiB either way). RLIMIT_DATA counts the
 * same reservations. What grows is the resident memory, so a thread
 * watches it while a dry-run runs, every 2 ms, and past
 * SJ_DRY_RUN_MAX_RSS_MIB answers the request with an error and ends the
 * process; the app starts a fresh one for the next request.
 */

#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "sj-dry-run-memory.h"

#define WATCH_INTERVAL_US 2000
/* The exit status of a helper stopped by the limit. */
#define EXIT_OUT_OF_MEMORY 3

static GMutex lock;      /* the output, and the fields below */
static GCond running;
static gint64 current_id = -1;

/* One answer per line on stdout, never two at once. */
void
sj_dry_run_write_line (const char *json)
{
  g_mutex_lock (&lock);
  fputs (json, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
  g_mutex_unlock (&lock);
}

static guint64
resident_bytes (int fd)
{
  char buffer[128];
  ssize_t n = pread (fd, buffer, sizeof buffer - 1, 0);
  char *end = NULL;

  if (n <= 0)
    return 0;
  buffer[n] = '\0';
  /* "size resident shared …", in pages. */
  g_ascii_strtoull (buffer, &end, 10);
  return g_ascii_strtoull (end, NULL, 10) * (guint64) sysconf (_SC_PAGESIZE);
}

static void
answer_out_of_memory (gint64  id,
                      guint64 bytes)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *message = NULL;
  g_autofree char *text = NULL;

  message = g_strdup_printf ("The code used more than %d MiB of memory (%" G_GUINT64_FORMAT " MiB) and was stopped.",
                             SJ_DRY_RUN_MAX_RSS_MIB, bytes / (1024 * 1024));
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, id);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "phase");
  json_builder_add_string_value (builder, "runtime");
  json_builder_set_member_name (builder, "error");
  json_builder_add_string_value (builder, "OutOfMemory");
  json_builder_set_member_name (builder, "outOfMemory");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "message");
  json_builder_add_string_value (builder, message);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

static gpointer
watch_thread (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  guint64 limit = (guint64) SJ_DRY_RUN_MAX_RSS_MIB * 1024 * 1024;

  for (;;)
    {
      guint64 bytes;

      g_mutex_lock (&lock);
      while (current_id < 0)
        g_cond_wait (&running, &lock);
      g_mutex_unlock (&lock);

      bytes = resident_bytes (fd);
      if (bytes > limit)
        {
          g_mutex_lock (&lock);
          if (current_id >= 0)
            {
              /* Held to the end: no other line can follow. */
              answer_out_of_memory (current_id, bytes);
              _exit (EXIT_OUT_OF_MEMORY);
            }
          g_mutex_unlock (&lock);
        }
      g_usleep (WATCH_INTERVAL_US);
    }

  return NULL;
}

/**
 * sj_dry_run_memory_watch_start:
 *
 * Starts the thread that watches the dry-runs' memory.
 */
void
sj_dry_run_memory_watch_start (void)
{
  int fd = open ("/proc/self/statm", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    {
      g_printerr ("strudel-jam-dryrun: no /proc/self/statm: dry-runs have no memory limit\n");
      return;
    }
  g_thread_unref (g_thread_new ("memory-watch", watch_thread, GINT_TO_POINTER (fd)));
}

/* The request @id runs from now on: its memory is watched. */
void
sj_dry_run_memory_watch_begin (gint64 id)
{
  g_mutex_lock (&lock);
  current_id = MAX (id, 0);
  g_cond_signal (&running);
  g_mutex_unlock (&lock);
}

void
sj_dry_run_memory_watch_end (void)
{
  g_mutex_lock (&lock);
  current_id = -1;
  g_mutex_unlock (&lock);
}
