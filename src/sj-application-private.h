/* sj-application-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the files of SjApplication share (sj-application.c,
 * sj-application-sounds.c, sj-application-help.c): its instance struct and
 * the functions one calls in another; what only the tests call, and the
 * help action's part of the application.
 */

#pragma once

#include "sj-application.h"
#include "sj-dry-run-cli.h"
#include "sj-knowledge-cli.h"
#include "sj-render-cli.h"

G_BEGIN_DECLS

struct _SjApplication
{
  AdwApplication        parent_instance;

  SjKnowledgeCliOptions cli;
  SjDryRunCliOptions    dry_run_cli;
  SjRenderCliOptions    render_cli;
  gboolean              print_version;
  gboolean              mcp;           /* --mcp */
  gboolean              options_parsed;
  char               ***arguments;   /* during local_command_line only */

  SjSoundsIndex        *sounds;
  SjKnowledge          *knowledge;
  SjSoundCache         *sound_cache;
  SjRemoteSamples      *remote_samples;
  SjUserSamples        *user_samples;
  SjSoundDownloads     *sound_downloads;
  GSettings            *settings;
  SjSkillRegistry      *skills;
  guint                 save_sounds_source;
  guint                 quit_deadline_ms;
  gboolean              quit_armed;

  /* The MCP interface (sj-application-mcp.c) */
  GDBusConnection      *mcp_connection;
  guint                 mcp_registration;
};

/* sj-application-sounds.c */
void _sj_application_load_sounds_cache (SjApplication *self);
void _sj_application_save_sounds_cache (SjApplication *self);

SjSoundsIndex *_sj_application_get_sounds (SjApplication *self);

/* sj-application-mcp.c */
gboolean _sj_application_mcp_register   (SjApplication    *self,
                                         GDBusConnection  *connection,
                                         const char       *object_path,
                                         GError          **error);
void     _sj_application_mcp_unregister (SjApplication    *self);

/* The help, as F1 and Main Menu → Help open it (gnome.yelp's id). */
#define SJ_HELP_URI "help:strudel-jam"

/* Opens @uri beside @parent; the result is a GTask of a boolean. */
typedef void (*SjUriLauncher) (GtkWindow           *parent,
                               const char          *uri,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data);

void _sj_application_show_help        (SjApplication *self);
void _sj_application_set_uri_launcher (SjUriLauncher  launcher);

G_END_DECLS
