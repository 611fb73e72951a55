/* sj-render-options.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What a render (issue 33) is asked for, checked before anything renders:
 * the number of cycles and the length they make are bounded (an offline
 * render holds the whole sound in memory), and the file or the stems'
 * folder must be writable, so that a typo in a path is said at once and
 * not after minutes of rendering. Errors come out as the JSON the command
 * line prints: {"status": "error", "error": {"code", "message"}}.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "sj-render-options.h"

G_DEFINE_QUARK (sj-render-error-quark, sj_render_error)

/* The "master-limiter" setting (Settings → Sounds): the live page's output
 * goes through the limiter when it is on, so a render's mix does too (the
 * file is what is heard). On, its default, when the schema is not there. */
static gboolean
limiter_setting (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) settings = NULL;

  if (source == NULL || (schema = g_settings_schema_source_lookup (source, APP_ID, TRUE)) == NULL ||
      !g_settings_schema_has_key (schema, "master-limiter"))
    return TRUE;
  settings = g_settings_new (APP_ID);

  return g_settings_get_boolean (settings, "master-limiter");
}

/**
 * sj_render_options_new:
 *
 * Returns: options with the default cycles and tempo, and the limiter as
 *   the "master-limiter" setting says
 */
SjRenderOptions *
sj_render_options_new (void)
{
  SjRenderOptions *options = g_new0 (SjRenderOptions, 1);

  options->cycles = SJ_RENDER_DEFAULT_CYCLES;
  options->cps = SJ_RENDER_DEFAULT_CPS;
  options->tail = SJ_RENDER_DEFAULT_CYCLES;
  options->limiter = limiter_setting ();

  return options;
}

void
sj_render_options_free (SjRenderOptions *options)
{
  if (options == NULL)
    return;

  g_free (options->code);
  g_free (options->output);
  g_free (options->stems_dir);
  g_free (options->timeline);
  g_free (options);
}

static gboolean
check_folder (const char  *folder,
              GError     **error)
{
  if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                   /* TRANSLATORS: %s is a folder */
                   _("The folder %s does not exist"), folder);
      return FALSE;
    }
  if (g_access (folder, W_OK) != 0)
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                   /* TRANSLATORS: %s is a folder */
                   _("The folder %s cannot be written to"), folder);
      return FALSE;
    }

  return TRUE;
}

/**
 * sj_render_options_check:
 *
 * Returns: %TRUE if @options can be rendered; otherwise @error says why,
 *   in %SJ_RENDER_ERROR
 */
gboolean
sj_render_options_check (const SjRenderOptions  *options,
                         GError                **error)
{
  g_autofree char *stripped = NULL;

  g_return_val_if_fail (options != NULL, FALSE);

  if (options->cycles < SJ_RENDER_MIN_CYCLES || options->cycles > SJ_RENDER_MAX_CYCLES)
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES,
                   _("The number of cycles must be %d to %d, not %d"),
                   SJ_RENDER_MIN_CYCLES, SJ_RENDER_MAX_CYCLES, options->cycles);
      return FALSE;
    }
  if (!(options->cps > 0))
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES, _("The tempo must be above 0"));
      return FALSE;
    }
  if (options->cycles / options->cps > SJ_RENDER_MAX_SECONDS)
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_TOO_LONG,
                   _("%d cycles last %.0f seconds; a render may last at most %.0f"),
                   options->cycles, options->cycles / options->cps, SJ_RENDER_MAX_SECONDS);
      return FALSE;
    }
  if (options->timeline != NULL && options->stems_dir != NULL)
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                           _("A jam renders to one file: stems are for the editor's code"));
      return FALSE;
    }
  if (options->timeline != NULL && (options->tail < 0 || options->tail > SJ_RENDER_MAX_CYCLES))
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES,
                   _("The cycles after the last change must be 0 to %d, not %d"),
                   SJ_RENDER_MAX_CYCLES, options->tail);
      return FALSE;
    }
  /* A jam's timeline has its codes in it (an empty one is silence). */
  stripped = g_strstrip (g_strdup (options->code != NULL ? options->code : ""));
  if (options->timeline == NULL && *stripped == '\0')
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_NO_CODE, _("There is no code to render"));
      return FALSE;
    }
  if (options->output == NULL && options->stems_dir == NULL)
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT, _("No file to render to"));
      return FALSE;
    }
  if (options->output != NULL)
    {
      g_autofree char *folder = g_path_get_dirname (options->output);

      if (g_file_test (options->output, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                       /* TRANSLATORS: %s is the file chosen to render to */
                       _("%s is a folder, not a file"), options->output);
          return FALSE;
        }
      if (!check_folder (folder, error))
        return FALSE;
    }
  /* The stems' folder is made if its parent is there. */
  if (options->stems_dir != NULL && !g_file_test (options->stems_dir, G_FILE_TEST_EXISTS))
    g_mkdir (options->stems_dir, 0755);
  if (options->stems_dir != NULL && !check_folder (options->stems_dir, error))
    return FALSE;

  return TRUE;
}

/**
 * sj_render_stem_path:
 * @index: the stem's place, from 0
 * @layer_id: the layer's name in the code (`$0`, `drums`, …)
 *
 * Returns: (transfer full): the stem's file, "01-drums.wav": numbered in the
 *   code's order, with only letters, digits, `-` and `_` of the layer's name
 */
char *
sj_render_stem_path (const char *stems_dir,
                     guint       index,
                     const char *layer_id)
{
  g_autoptr(GString) name = g_string_new (NULL);
  g_autofree char *file = NULL;

  for (const char *p = layer_id != NULL ? layer_id : ""; *p != '\0' && name->len < 40; p++)
    if (g_ascii_isalnum (*p) || *p == '-' || *p == '_')
      g_string_append_c (name, *p);

  if (name->len == 0 || g_ascii_isdigit (name->str[0]))
    g_string_prepend (name, "layer");
  file = g_strdup_printf ("%02u-%s.wav", index + 1, name->str);

  return g_build_filename (stems_dir, file, NULL);
}

/* The `code` of the JSON error: what a script tests for. */
const char *
sj_render_error_code (const GError *error)
{
  static const char *codes[] = {
    [SJ_RENDER_ERROR_CYCLES] = "cycles",
    [SJ_RENDER_ERROR_TOO_LONG] = "too-long",
    [SJ_RENDER_ERROR_NO_CODE] = "no-code",
    [SJ_RENDER_ERROR_OUTPUT] = "output",
    [SJ_RENDER_ERROR_PATTERN] = "pattern",
    [SJ_RENDER_ERROR_PAGE] = "page",
    [SJ_RENDER_ERROR_FORMAT] = "format",
    [SJ_RENDER_ERROR_SESSION] = "session",
    [SJ_RENDER_ERROR_TOO_MANY_CHANGES] = "too-many-changes",
  };

  if (error != NULL && error->domain == SJ_RENDER_ERROR && error->code >= 0 &&
      (gsize)error->code < G_N_ELEMENTS (codes))
    return codes[error->code];
  if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "cancelled";
  if (error != NULL && error->domain == G_IO_ERROR)
    return "output";

  return "failed";
}

/* Returns: (transfer full): {"status": "error", "error": {"code", "message"}} */
JsonObject *
sj_render_error_json (const GError *error)
{
  JsonObject *object = json_object_new ();
  JsonObject *inner = json_object_new ();

  json_object_set_string_member (inner, "code", sj_render_error_code (error));
  json_object_set_string_member (inner, "message", error != NULL ? error->message : "");
  json_object_set_string_member (object, "status", "error");
  json_object_set_object_member (object, "error", inner);

  return object;
}
