/* sj-onboarding-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the parts of SjOnboarding share (sj-onboarding.c: the states, the
 * model step and the way into the chat; sj-onboarding-ways.c: the two ways
 * forward, an OpenRouter key and a server on this computer).
 */

#pragma once

#include <adwaita.h>

#include "sj-local-servers.h"
#include "sj-onboarding.h"

G_BEGIN_DECLS

/* How long each step may wait on the network. */
#define SJ_ONBOARDING_HOSTED_TIMEOUT_S 20
#define SJ_ONBOARDING_LOCAL_TIMEOUT_S  5

struct _SjOnboarding
{
  GtkWidget            parent_instance;

  SjAgentConfig       *config;
  GSettings           *settings;
  GSignalGroup        *config_signals;
  GCancellable        *cancellable;         /* the way's work under way: a key, a server, the models */
  GCancellable        *detect_cancellable;  /* the search for a local server */
  gboolean             busy;                /* a way's work is under way */
  gboolean             choosing;            /* the musician is at the model step */
  gboolean             detected;            /* the search ran while this page was needed */
  gboolean             local_edited;        /* the URL was typed: a search does not replace it */
  gboolean             setting_local;       /* the URL is being set by the page itself */
  char                *key;                 /* the key being checked, then stored; wiped */
  SjModelCatalog      *catalog;             /* the models the key or server offered */
  char                *pending_provider;    /* the endpoint the model step is for */
  char                *pending_base_url;
  GtkStringList       *models;

  /* Template widgets */
  AdwStatusPage       *status_page;
  GtkStack            *steps;
  GtkButton           *retry_button;
  AdwPreferencesGroup *openrouter_group;
  AdwPasswordEntryRow *key_row;
  GtkButton           *key_button;
  GtkLabel            *key_error;
  AdwPreferencesGroup *local_group;
  GtkButton           *detect_button;
  AdwEntryRow         *local_row;
  GtkButton           *local_button;
  GtkLabel            *local_status;
  GtkLabel            *local_error;
  AdwComboRow         *model_row;
  GtkButton           *start_button;
  GtkButton           *back_button;
};

/* Cancels what @cancellable was for and gives a new one: only the latest
 * attempt may report. */
static inline GCancellable *
_sj_onboarding_restart (GCancellable **cancellable)
{
  g_cancellable_cancel (*cancellable);
  g_clear_object (cancellable);
  *cancellable = g_cancellable_new ();
  return *cancellable;
}

/* sj-onboarding.c */
gboolean _sj_onboarding_focus_is_here        (SjOnboarding   *self);
void     _sj_onboarding_set_busy             (SjOnboarding   *self,
                                              gboolean        busy);
void     _sj_onboarding_show_models          (SjOnboarding   *self,
                                              const char     *provider,
                                              const char     *base_url,
                                              SjModelCatalog *catalog);
void     _sj_onboarding_show_error           (GtkLabel       *label,
                                              const char     *message);

/* sj-onboarding-ways.c */
void     _sj_onboarding_ways_class_init      (GtkWidgetClass *widget_class);
void     _sj_onboarding_detect               (SjOnboarding   *self);
void     _sj_onboarding_forget_key           (SjOnboarding   *self);
void     _sj_onboarding_update_key_button    (SjOnboarding   *self);
char    *_sj_onboarding_describe_fetch_error (gboolean        hosted,
                                              const char     *base_url,
                                              const GError   *error);

G_END_DECLS
