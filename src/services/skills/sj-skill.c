/* sj-skill.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One skill: a musician's or the app's expertise about a style or a
 * technique, as the registry loaded it from its folder. A skill is an
 * immutable value once loaded (the loader, sj-skill-load.c, is the only
 * writer), so the agent, the matcher and the pages may share it freely;
 * a changed folder is loaded again into a new SjSkill.
 */

#include "config.h"

#include "sj-skill-private.h"

G_DEFINE_FINAL_TYPE (SjSkill, sj_skill, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-skill-error-quark, sj_skill_error)

void
_sj_skill_snippet_free (gpointer data)
{
  SjSkillSnippet *snippet = data;

  g_free (snippet->name);
  g_free (snippet->description);
  g_free (snippet->code);
  g_free (snippet);
}

static void
sj_skill_finalize (GObject *object)
{
  SjSkill *self = (SjSkill *)object;

  g_free (self->name);
  g_free (self->title);
  g_free (self->description);
  g_free (self->version);
  g_strfreev (self->tags);
  g_strfreev (self->triggers);
  g_free (self->rules);
  g_free (self->markdown);
  g_clear_pointer (&self->templates, g_ptr_array_unref);
  g_clear_pointer (&self->patterns, g_ptr_array_unref);
  g_clear_object (&self->folder);

  G_OBJECT_CLASS (sj_skill_parent_class)->finalize (object);
}

static void
sj_skill_class_init (SjSkillClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_skill_finalize;
}

static void
sj_skill_init (SjSkill *self)
{
  self->priority = 50;
  self->templates = g_ptr_array_new_with_free_func (_sj_skill_snippet_free);
  self->patterns = g_ptr_array_new_with_free_func (_sj_skill_snippet_free);
}

SjSkill *
_sj_skill_new (void)
{
  return g_object_new (SJ_TYPE_SKILL, NULL);
}

void
_sj_skill_set_overrides (SjSkill  *self,
                         gboolean  overrides)
{
  g_assert (SJ_IS_SKILL (self));

  self->overrides = overrides;
}

const char *
sj_skill_get_name (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->name;
}

const char *
sj_skill_get_title (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->title;
}

const char *
sj_skill_get_description (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->description;
}

const char *
sj_skill_get_version (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->version;
}

const char * const *
sj_skill_get_tags (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return (const char * const *) self->tags;
}

const char * const *
sj_skill_get_triggers (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return (const char * const *) self->triggers;
}

int
sj_skill_get_priority (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->priority;
}

/**
 * sj_skill_get_rules:
 *
 * Returns: the body of the `## Rules` section of SKILL.md, trimmed: what
 *   joins the agent's context when the skill is active
 */
const char *
sj_skill_get_rules (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->rules;
}

/**
 * sj_skill_get_markdown:
 *
 * Returns: the whole SKILL.md, for a page to render
 */
const char *
sj_skill_get_markdown (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->markdown;
}

/**
 * sj_skill_get_templates:
 *
 * Returns: (transfer none) (element-type SjSkillSnippet): the programs of
 *   templates.strudel, empty when it has none
 */
GPtrArray *
sj_skill_get_templates (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->templates;
}

/**
 * sj_skill_get_patterns:
 *
 * Returns: (transfer none) (element-type SjSkillSnippet): the snippets of
 *   patterns.json, empty when it has none
 */
GPtrArray *
sj_skill_get_patterns (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->patterns;
}

SjSkillOrigin
sj_skill_get_origin (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->origin;
}

/**
 * sj_skill_get_folder:
 *
 * Returns: (transfer none): the folder the skill was loaded from
 */
GFile *
sj_skill_get_folder (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->folder;
}

/**
 * sj_skill_get_overrides:
 *
 * Returns: whether this user skill hides a bundled skill of the same name
 */
gboolean
sj_skill_get_overrides (SjSkill *self)
{
  g_assert (SJ_IS_SKILL (self));

  return self->overrides;
}

gboolean
sj_skill_has_tag (SjSkill    *self,
                  const char *tag)
{
  g_assert (SJ_IS_SKILL (self));

  return tag != NULL && g_strv_contains ((const char * const *) self->tags, tag);
}
