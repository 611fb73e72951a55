/* sj-agent-config.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-agent.h"

G_BEGIN_DECLS

#define SJ_TYPE_AGENT_CONFIG (sj_agent_config_get_type ())

G_DECLARE_FINAL_TYPE (SjAgentConfig, sj_agent_config, SJ, AGENT_CONFIG, GObject)

SjAgentConfig *sj_agent_config_new           (SjAgent        *agent,
                                              GSettings      *settings);
void           sj_agent_config_reload        (SjAgentConfig  *self);
gboolean       sj_agent_config_is_ready      (SjAgentConfig  *self);
const GError  *sj_agent_config_get_problem   (SjAgentConfig  *self);
GSettings     *sj_agent_config_get_settings  (SjAgentConfig  *self);
void           sj_agent_config_get_endpoint  (GSettings      *settings,
                                              char          **provider,
                                              char          **base_url);

G_END_DECLS
