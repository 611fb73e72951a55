/* sj-bundled-data.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The data compiled into the program (doc.json, the runtime scope, the
 * curated notes, the agent's prompt and tools), registered once for
 * whichever service asks first.
 */

#include "config.h"

#include "sj-bundled-data.h"
#include "sj-bundled-resources.h"

#define RESOURCE_DIR "/io/github/strudeljam/StrudelJam/knowledge/"

/**
 * sj_bundled_data_register:
 *
 * Registers the services' resources (the knowledge, and the agent's
 * prompt and tool definitions) once, for whichever service needs them
 * first.
 */
void
sj_bundled_data_register (void)
{
  static gsize registered = 0;

  if (g_once_init_enter (&registered))
    {
      sj_bundled_register_resource ();
      g_once_init_leave (&registered, 1);
    }
}

/**
 * sj_bundled_data_lookup:
 * @name: a file name, such as "doc.json" or "effects.md"
 *
 * Returns: (transfer full): the file's contents
 */
GBytes *
sj_bundled_data_lookup (const char  *name,
                        GError     **error)
{
  g_autofree char *path = g_strconcat (RESOURCE_DIR, name, NULL);

  sj_bundled_data_register ();

  return g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
}
