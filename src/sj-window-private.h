/* sj-window-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the parts of SjWindow (sj-window.c, sj-window-panel.c,
 * sj-window-changes.c, sj-window-agent.c, sj-window-open.c,
 * sj-window-samples.c, sj-window-outputs.c) share, and what the tests and
 * benchmarks reach: the window's page, pages and code store.
 */

#pragma once

#include "sj-agent-config.h"
#include "sj-change-applier.h"
#include "sj-change-verify.h"
#include "sj-chat-panel.h"
#include "sj-code-store.h"
#include "sj-console-page.h"
#include "sj-downloads-indicator.h"
#include "sj-levels.h"
#include "sj-outputs.h"
#include "sj-panel-switcher.h"
#include "sj-phrase-recorder.h"
#include "sj-recorder.h"
#include "sj-reference-page.h"
#include "sj-repl.h"
#include "sj-sessions-page.h"
#include "sj-settings-page.h"
#include "sj-skills-page.h"
#include "sj-sounds-page.h"
#include "sj-tool-logs-page.h"
#include "sj-voice-session.h"
#include "sj-window.h"

G_BEGIN_DECLS

/* What the window keeps for MCP clients (sj-window-mcp.c). */
typedef struct _SjWindowMcp SjWindowMcp;

struct _SjWindow
{
  AdwApplicationWindow  parent_instance;

  SjRepl               *repl;
  SjOutputs            *outputs;
  SjCodeStore          *code_store;
  SjDryRun             *dry_run;
  SjChangeApplier      *applier;
  GSettings            *settings;
  GCancellable         *cancellable;
  gboolean              closing;
  gboolean              close_ready;
  gboolean              save_failure_shown;  /* until a save succeeds */
  AdwToast             *save_failure_toast;
  gboolean              sound_cache_connected;
  GHashTable           *samples_reported; /* folder id → what the Console said of it */

  /* Opening a file (sj-window-open.c) */
  GCancellable         *open_cancellable;
  char                 *open_name;    /* the file being opened */
  char                 *open_code;    /* its code, on its way to the editor */
  gboolean              open_busy;    /* asking the page or replacing */
  AdwMessageDialog     *replace_dialog;
  char                 *opened_code;  /* the code of the file opened last */

  /* What the app hears of its output (sj-window-levels.c) */
  SjLevels             *levels;
  SjChangeVerifier     *verifier;
  char                 *meter_label;  /* the meter's accessible name now */
  guint                 meter_tick_id;

  /* OSC destinations asked about (sj-window-outputs.c) */
  GHashTable           *osc_dialogs;  /* "host:port" -> AdwMessageDialog */

  /* Record a Phrase and Learn (sj-window-play-in.c) */
  SjPhraseRecorder     *phrase_recorder;
  GCancellable         *phrase_cancellable;  /* while a phrase is asked for */
  guint                 phrase_cycles;
  gulong                learn_handler;       /* while Learn waits for a controller */
  guint                 learn_timeout_id;
  guint                 learn_control;
  guint                 learn_channel;
  char                 *learn_message;
  char                 *play_in_status;      /* the last thing either said */

  /* Record what you hear (sj-window-record.c) */
  SjRecorder           *recorder;
  guint                 record_tick_id;
  char                 *record_folder;     /* NULL: Music/Strudel Jam */
  char                 *record_extension;  /* "flac" or "wav" */
  char                 *recorded_path;     /* the last file recorded */
  char                 *record_status;     /* the last toast it showed */

  /* Template widgets */
  GtkButton            *play_button;
  GtkToggleButton      *record_button;
  GtkLabel             *record_label;
  GtkLabel             *tempo_label;
  gboolean              tempo_known;   /* the code has played: the page knows its tempo */
  GtkLabel             *cycle_label;
  GtkWidget            *level_box;
  GtkLevelBar          *level_meter;
  GtkWidget            *clip_label;
  AdwWindowTitle       *window_title;
  AdwToastOverlay      *toast_overlay;
  GtkPaned             *paned;
  GtkOverlay           *editor_overlay;
  GtkSpinner           *loading_spinner;
  GtkWidget            *panel;
  SjPanelSwitcher      *panel_switcher;
  AdwViewStack         *panel_stack;
  SjConsolePage        *console_page;
  SjReferencePage      *reference_page;
  SjSoundsPage         *sounds_page;
  SjSkillsPage         *skills_page;
  SjChatPanel          *chat_panel;
  SjToolLogsPage       *tool_logs_page;
  AdwBin               *sessions_bin;
  AdwBin               *settings_bin;
  SjDownloadsIndicator *downloads_indicator;

  /* The agent, built once the window has its application. */
  SjHistoryStore       *history;
  SjAgent              *agent;
  GSignalGroup         *agent_signals; /* the window's connections to it */
  SjAgentConfig        *agent_config;
  SjSessionsPage       *sessions_page;
  SjSettingsPage       *settings_page;

  /* Voice (sj-window-voice.c) */
  SjVoiceSession       *voice;
  gboolean              voice_starting;  /* reading the endpoint's key */
  gboolean              voice_stopping;
  gboolean              voice_ducked;
  gboolean              voice_endpoint_failed;  /* in this utterance */
  gboolean              voice_fallback_said;    /* Moonshine's absence, once a run */

  /* Live-set controls (sj-window-live.c) */
  double                pending_cycle;   /* the pending swap's boundary, NAN for none */
  double                heard_cycle;     /* the last cycle heard sounding, NAN for none */
  char                 *heard_code;      /* the code that played in it */
  gboolean              panicking;
  gboolean              panic_stopped_turn; /* until the stopped answer has ended */
  gboolean              landing_override; /* the composer's landing holds for this turn */
  double                landing_cycle;   /* a committed swap's boundary until it sounds, NAN for none */
  double                countdown_cycle; /* the page's last countdown: its boundary */
  int                   countdown_beats; /* and its beats */
  char                 *live_status;     /* the last thing Cancel Change said */

  /* MCP clients (sj-window-mcp.c), NULL until the first call */
  SjWindowMcp          *mcp;
};

void _sj_window_show_toast       (SjWindow       *self,
                                  const char     *title,
                                  const char     *button_label,
                                  const char     *action_name);
void _sj_window_panel_class_init (GtkWidgetClass *widget_class);
void _sj_window_panel_init       (SjWindow       *self);
void _sj_window_changes_init     (SjWindow       *self);
void _sj_window_changes_dispose  (SjWindow       *self);
void _sj_window_open_init        (SjWindow       *self);
void _sj_window_open_dispose     (SjWindow       *self);
void _sj_window_outputs_init     (SjWindow       *self);
void _sj_window_outputs_dispose  (SjWindow       *self);
void _sj_window_levels_class_init (GtkWidgetClass *widget_class);
void _sj_window_levels_init      (SjWindow       *self);
void _sj_window_levels_attach    (SjWindow       *self);
void _sj_window_levels_dispose   (SjWindow       *self);
void _sj_window_agent_class_init (GtkWidgetClass *widget_class);
void _sj_window_agent_init       (SjWindow       *self);
void _sj_window_agent_dispose    (SjWindow       *self);
void _sj_window_samples_connect  (SjWindow       *self,
                                  SjUserSamples  *samples);
void _sj_window_samples_dispose  (SjWindow       *self);
void _sj_window_remote_connect   (SjWindow       *self,
                                  SjRemoteSamples *remote);
void _sj_window_voice_init       (SjWindow       *self);
void _sj_window_play_in_init     (SjWindow       *self);
void _sj_window_play_in_dispose  (SjWindow       *self);
void _sj_window_voice_dispose    (SjWindow       *self);
void _sj_window_save_init        (SjWindow       *self);
void _sj_window_render_init      (SjWindow       *self);
void _sj_window_render_session   (SjWindow       *self,
                                  gint64          session_id);
void _sj_window_record_init      (SjWindow       *self);
void _sj_window_record_dispose   (SjWindow       *self);
void _sj_window_set_record_folder (SjWindow      *self,
                                   const char    *folder,
                                   const char    *extension);
void _sj_window_save_dispose     (SjWindow       *self);
void _sj_window_save_copy_to     (SjWindow       *self,
                                  GFile          *file);
void _sj_window_live_init        (SjWindow       *self);
void _sj_window_live_dispose     (SjWindow       *self);
void _sj_window_mcp_dispose      (SjWindow       *self);
void _sj_window_mcp_cancel_calls (SjWindow       *self);
void _sj_window_changes_read_defaults (SjWindow  *self);
void _sj_window_apply_code       (SjWindow       *self,
                                  const char     *code,
                                  const char     *what);

/* For the tests. */
SjRepl          *_sj_window_get_repl           (SjWindow *self);
SjConsolePage   *_sj_window_get_console_page   (SjWindow *self);
SjReferencePage *_sj_window_get_reference_page (SjWindow *self);
SjSoundsPage    *_sj_window_get_sounds_page    (SjWindow *self);
SjSkillsPage    *_sj_window_get_skills_page    (SjWindow *self);
SjCodeStore     *_sj_window_get_code_store     (SjWindow *self);
SjVoiceSession  *_sj_window_get_voice          (SjWindow *self);
SjLevels        *_sj_window_get_levels         (SjWindow *self);
SjChangeVerifier *_sj_window_get_verifier      (SjWindow *self);
const char      *_sj_window_get_heard_code     (SjWindow *self);
gboolean         _sj_window_is_panicking       (SjWindow *self);
const char      *_sj_window_get_live_status    (SjWindow *self);
gboolean         _sj_window_is_landing         (SjWindow *self);
AdwMessageDialog *_sj_window_get_osc_dialog    (SjWindow   *self,
                                                const char *destination);
SjPhraseRecorder *_sj_window_get_phrase_recorder (SjWindow *self);
const char      *_sj_window_get_play_in_status (SjWindow *self);
AdwMessageDialog *_sj_window_get_mcp_dialog    (SjWindow   *self,
                                                const char *client);

G_END_DECLS
