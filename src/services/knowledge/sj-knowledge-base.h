/* sj-knowledge-base.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SJ_KNOWLEDGE_BASE_MAX_QUERY    1000
#define SJ_KNOWLEDGE_BASE_MAX_CONTEXT  20
#define SJ_KNOWLEDGE_BASE_MAX_RESULTS  50

#define SJ_TYPE_KNOWLEDGE_BASE (sj_knowledge_base_get_type ())

G_DECLARE_FINAL_TYPE (SjKnowledgeBase, sj_knowledge_base, SJ, KNOWLEDGE_BASE, GObject)

SjKnowledgeBase    *sj_knowledge_base_get_bundled        (void);
JsonNode           *sj_knowledge_base_search             (SjKnowledgeBase  *self,
                                                          const char       *query,
                                                          const char       *category,
                                                          int               context_lines,
                                                          int               max_results);
JsonNode           *sj_knowledge_base_search_json        (SjKnowledgeBase  *self,
                                                          JsonObject       *arguments);

G_END_DECLS
