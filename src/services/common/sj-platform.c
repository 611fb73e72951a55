/* sj-platform.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Facts about the machine that decide rendering defaults.
 */

#include "config.h"

#include "sj-platform.h"

/**
 * sj_platform_has_gpu:
 *
 * Whether a GPU can render for us: a DRM render node exists (in a Flatpak
 * only with --device=dri). Without one, OpenGL means Mesa's software
 * rasterizer, which bench/startup and bench/audio measured to cost more
 * than drawing without OpenGL at all. LIBGL_ALWAYS_SOFTWARE=1 counts as
 * no GPU too.
 *
 * Returns: %TRUE when there is a render node and software GL is not forced
 */
gboolean
sj_platform_has_gpu (void)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (g_strcmp0 (g_getenv ("LIBGL_ALWAYS_SOFTWARE"), "1") == 0)
    return FALSE;

  dir = g_dir_open ("/dev/dri", 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_prefix (name, "renderD"))
        return TRUE;
    }

  return FALSE;
}
