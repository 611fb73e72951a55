/* sj-application.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "sj-knowledge.h"
#include "sj-remote-samples.h"
#include "sj-skill-registry.h"
#include "sj-sound-cache.h"
#include "sj-sound-downloads.h"
#include "sj-sounds-index.h"
#include "sj-user-samples.h"

G_BEGIN_DECLS

#define SJ_TYPE_APPLICATION (sj_application_get_type ())

G_DECLARE_FINAL_TYPE (SjApplication, sj_application, SJ, APPLICATION, AdwApplication)

SjApplication *sj_application_new            (void);
void           sj_application_prepare_env    (void);
void           sj_application_setup_i18n     (void);
void           sj_application_set_quit_deadline (SjApplication *self,
                                                 guint          deadline_ms);
SjKnowledge   *sj_application_get_knowledge  (SjApplication *self);
SjSoundCache  *sj_application_get_sound_cache (SjApplication *self);
SjRemoteSamples *sj_application_get_remote_samples (SjApplication *self);
SjSkillRegistry *sj_application_get_skills   (SjApplication *self);
SjUserSamples *sj_application_get_user_samples (SjApplication *self);
SjSoundDownloads *sj_application_get_sound_downloads (SjApplication *self);
void           sj_application_update_sounds  (SjApplication *self,
                                              JsonObject    *snapshot);

G_END_DECLS
