/* sj-skill-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the skill files share: the instance struct, filled by the loader
 * (sj-skill-load.c, sj-skill-snippets.c) and read by the getters
 * (sj-skill.c), and what the registry sets once it knows both roots.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-skill.h"

G_BEGIN_DECLS

struct _SjSkill
{
  GObject        parent_instance;

  char          *name;
  char          *title;
  char          *description;
  char          *version;
  GStrv          tags;
  GStrv          triggers;
  int            priority;
  char          *rules;
  char          *markdown;
  GPtrArray     *templates;  /* of SjSkillSnippet */
  GPtrArray     *patterns;   /* of SjSkillSnippet */
  SjSkillOrigin  origin;
  GFile         *folder;
  gboolean       overrides;
};

SjSkill *_sj_skill_new           (void);
void     _sj_skill_snippet_free  (gpointer  snippet);
void     _sj_skill_set_overrides (SjSkill  *self,
                                  gboolean  overrides);
gboolean _sj_skill_check_depth   (const char *json,
                                  gsize       length,
                                  guint       max_depth);

/* sj-skill-load.c, for sj-skill-snippets.c */
gboolean    _sj_skill_fail        (GError      **error,
                                   SjSkillError  code,
                                   const char   *skill,
                                   const char   *file,
                                   const char   *format,
                                   ...) G_GNUC_PRINTF (5, 6);
JsonNode   *_sj_skill_parse_json  (const char   *text,
                                   const char   *skill,
                                   const char   *file,
                                   GError      **error);
const char *_sj_skill_get_string  (JsonObject   *object,
                                   const char   *key,
                                   gboolean      required,
                                   guint         min_chars,
                                   guint         max_chars,
                                   const char   *skill,
                                   const char   *file,
                                   GError      **error);

/* sj-skill-snippets.c */
gboolean _sj_skill_load_templates (SjSkill     *skill,
                                   const char  *text,
                                   GError     **error);
gboolean _sj_skill_load_patterns  (SjSkill     *skill,
                                   const char  *text,
                                   GError     **error);

G_END_DECLS
