/* sj-render-options.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SJ_RENDER_ERROR (sj_render_error_quark ())

typedef enum
{
  SJ_RENDER_ERROR_CYCLES,       /* out of range */
  SJ_RENDER_ERROR_TOO_LONG,     /* more seconds than a render may hold */
  SJ_RENDER_ERROR_NO_CODE,
  SJ_RENDER_ERROR_OUTPUT,       /* the file or folder cannot be written */
  SJ_RENDER_ERROR_PATTERN,      /* the code failed: evaluation or rendering */
  SJ_RENDER_ERROR_PAGE,         /* the hidden page could not render at all */
  SJ_RENDER_ERROR_FORMAT,       /* what the page rendered is not a WAV we read */
  SJ_RENDER_ERROR_SESSION,      /* no such session (a jam's timeline) */
  SJ_RENDER_ERROR_TOO_MANY_CHANGES, /* a jam's timeline over its cap */
} SjRenderError;

#define SJ_RENDER_MIN_CYCLES      1
#define SJ_RENDER_MAX_CYCLES      1000
#define SJ_RENDER_DEFAULT_CYCLES  8
/* An offline render holds the whole sound in memory (as floats, and the
 * WAV beside it): ten minutes of stereo at 48 kHz is about 350 MiB. */
#define SJ_RENDER_MAX_SECONDS     600.0
#define SJ_RENDER_SAMPLE_RATE     48000
#define SJ_RENDER_DEFAULT_CPS     0.5

typedef struct
{
  char   *code;
  int     cycles;
  double  cps;          /* the tempo unless the code sets its own */
  char   *output;       /* the mix's file, or NULL */
  char   *stems_dir;    /* one file per layer in this folder, or NULL */
  char   *timeline;     /* a jam's changes as JSON (sj_render_timeline_to_json ()),
                         * rendered instead of @code, or NULL */
  int     tail;         /* with @timeline: the cycles after a play's last change */
  guint   n_changes;    /* with @timeline: how many changes it has */
  gboolean limiter;     /* through the master limiter, as live (TRUE) */
} SjRenderOptions;

GQuark           sj_render_error_quark           (void);
SjRenderOptions *sj_render_options_new           (void);
void             sj_render_options_free          (SjRenderOptions  *options);
gboolean         sj_render_options_check         (const SjRenderOptions *options,
                                                  GError          **error);
char            *sj_render_stem_path             (const char       *stems_dir,
                                                  guint             index,
                                                  const char       *layer_id);
const char      *sj_render_error_code            (const GError     *error);
JsonObject      *sj_render_error_json            (const GError     *error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjRenderOptions, sj_render_options_free)

G_END_DECLS
