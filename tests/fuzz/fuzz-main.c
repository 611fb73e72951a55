/* fuzz-main.c
 *
 * Without libFuzzer (a gcc build): runs a fuzz target once on each file of
 * the folders and files given, so the seed corpus and every crash ever
 * found stay regression tests of `meson test`.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

static guint
run_file (const char *path)
{
  g_autofree char *contents = NULL;
  g_autofree guint8 *exact = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    g_error ("%s", error->message);
  /* Exactly the input, without the nul g_file_get_contents() adds, as
   * libFuzzer passes it: under ASan a read past the end is caught. */
  exact = g_memdup2 (contents, length);
  LLVMFuzzerTestOneInput (exact, length);

  return 1;
}

int
main (int   argc,
      char *argv[])
{
  guint runs = 0;

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GDir) dir = g_dir_open (argv[i], 0, NULL);
      const char *name;

      if (dir == NULL)
        {
          runs += run_file (argv[i]);
          continue;
        }
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (argv[i], name, NULL);

          runs += run_file (path);
        }
    }

  g_print ("%u inputs, no crash\n", runs);
  return runs > 0 ? 0 : 1;
}
