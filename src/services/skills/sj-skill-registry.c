/* sj-skill-registry.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The skills the app knows: the bundled ones, installed read-only with
 * the app (or, uninstalled, in the folder STRUDEL_JAM_SKILLS_DIR names),
 * and the musician's own under $XDG_DATA_HOME/strudel-jam/skills, where a
 * skill of a bundled skill's name replaces it. Every folder is loaded
 * and validated on its own: a broken skill is an entry in the errors a
 * page shows, never a failure of the others or of the app.
 *
 * The registry is a GListModel of SjSkill sorted by title, so a page can
 * list it as it is; "changed" says when it was loaded again or a skill
 * was enabled or disabled. Disabled skills stay in the list (the page
 * shows them off) but are never matched nor activated; the set is kept in
 * GSettings ("disabled-skills") when the registry has settings.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "sj-fuzzy.h"
#include "sj-skill-private.h"
#include "sj-skill-registry-private.h"

#ifndef SJ_SKILLS_DIR
#define SJ_SKILLS_DIR "/usr/share/strudel-jam/skills"
#endif

enum
{
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SjSkillRegistry, sj_skill_registry, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *model)
{
  return SJ_TYPE_SKILL;
}

static guint
get_n_items (GListModel *model)
{
  return SJ_SKILL_REGISTRY (model)->skills->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  SjSkillRegistry *self = SJ_SKILL_REGISTRY (model);

  if (position >= self->skills->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->skills, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

void
_sj_skill_registry_rebuild_matcher (SjSkillRegistry *self)
{
  g_clear_pointer (&self->matcher, sj_skill_matcher_free);
  self->matcher = sj_skill_matcher_new ();

  for (guint i = 0; i < self->skills->len; i++)
    {
      SjSkill *skill = g_ptr_array_index (self->skills, i);

      if (!g_hash_table_contains (self->disabled, sj_skill_get_name (skill)))
        sj_skill_matcher_add (self->matcher, skill, sj_skill_get_priority (skill), sj_skill_get_triggers (skill));
    }
}

static void
read_disabled (SjSkillRegistry *self)
{
  g_auto(GStrv) names = NULL;

  if (self->settings == NULL)
    return;

  g_hash_table_remove_all (self->disabled);
  names = g_settings_get_strv (self->settings, "disabled-skills");
  for (guint i = 0; names[i] != NULL; i++)
    g_hash_table_add (self->disabled, g_strdup (names[i]));
}

static void
disabled_changed_cb (SjSkillRegistry *self)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  read_disabled (self);
  _sj_skill_registry_rebuild_matcher (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
sj_skill_registry_dispose (GObject *object)
{
  _sj_skill_registry_stop_monitor (SJ_SKILL_REGISTRY (object));

  G_OBJECT_CLASS (sj_skill_registry_parent_class)->dispose (object);
}

static void
sj_skill_registry_finalize (GObject *object)
{
  SjSkillRegistry *self = (SjSkillRegistry *)object;

  g_free (self->bundled_root);
  g_free (self->user_root);
  g_clear_object (&self->settings);
  g_hash_table_unref (self->disabled);
  g_ptr_array_unref (self->skills);
  g_hash_table_unref (self->by_name);
  g_ptr_array_unref (self->errors);
  g_clear_pointer (&self->matcher, sj_skill_matcher_free);

  G_OBJECT_CLASS (sj_skill_registry_parent_class)->finalize (object);
}

static void
sj_skill_registry_class_init (SjSkillRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sj_skill_registry_dispose;
  G_OBJECT_CLASS (klass)->finalize = sj_skill_registry_finalize;

  /**
   * SjSkillRegistry::changed:
   *
   * The skills were loaded again, or one was enabled or disabled.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_skill_registry_init (SjSkillRegistry *self)
{
  self->disabled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->skills = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  self->matcher = sj_skill_matcher_new ();
}

/**
 * sj_skill_registry_new_for_roots:
 * @bundled_root: (nullable): the folder of the bundled skills
 * @user_root: (nullable): the folder of the musician's skills
 * @settings: (nullable): the app's settings, for the disabled skills
 *
 * Returns: (transfer full): a registry with its skills loaded
 */
SjSkillRegistry *
sj_skill_registry_new_for_roots (const char *bundled_root,
                                 const char *user_root,
                                 GSettings  *settings)
{
  SjSkillRegistry *self;

  g_return_val_if_fail (!settings || G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SJ_TYPE_SKILL_REGISTRY, NULL);

  self->bundled_root = g_strdup (bundled_root);
  self->user_root = g_strdup (user_root);
  if (settings != NULL)
    {
      self->settings = g_object_ref (settings);
      g_signal_connect_object (settings, "changed::disabled-skills", G_CALLBACK (disabled_changed_cb), self,
                               G_CONNECT_SWAPPED);
    }
  read_disabled (self);
  sj_skill_registry_reload (self);

  return self;
}

/**
 * sj_skill_registry_new:
 * @settings: (nullable): the app's settings
 *
 * The registry of the installed app: the bundled skills from
 * STRUDEL_JAM_SKILLS_DIR when it is set (uninstalled runs and the tests),
 * from the installed data otherwise, and the user's, followed on disk.
 */
SjSkillRegistry *
sj_skill_registry_new (GSettings *settings)
{
  const char *bundled = g_getenv ("STRUDEL_JAM_SKILLS_DIR");
  g_autofree char *user = g_build_filename (g_get_user_data_dir (), "strudel-jam", "skills", NULL);
  SjSkillRegistry *self;

  self = sj_skill_registry_new_for_roots (bundled != NULL && *bundled != '\0' ? bundled : SJ_SKILLS_DIR, user, settings);
  _sj_skill_registry_start_monitor (self);

  return self;
}

static int
compare_titles (gconstpointer a,
                gconstpointer b)
{
  SjSkill *x = *(SjSkill **) a, *y = *(SjSkill **) b;
  g_autofree char *kx = g_utf8_collate_key (sj_skill_get_title (x), -1);
  g_autofree char *ky = g_utf8_collate_key (sj_skill_get_title (y), -1);
  int order = strcmp (kx, ky);

  return order != 0 ? order : strcmp (sj_skill_get_name (x), sj_skill_get_name (y));
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Loads one root's folders into @found (name → SjSkill), the later root
 * replacing the earlier's skills of the same name. */
static void
load_root (SjSkillRegistry *self,
           const char      *root,
           SjSkillOrigin    origin,
           GHashTable      *found)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (root == NULL)
    return;

  dir = g_file_new_for_path (root);
  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, &error);
  if (children == NULL)
    {
      /* No folder is no skills, as on a first run; anything else is said. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_ptr_array_add (self->errors, g_error_new (SJ_SKILL_ERROR, SJ_SKILL_ERROR_BAD_FOLDER,
                                                    _("The skills in “%s” could not be read: %s"), root, error->message));
      return;
    }

  for (;;)
    {
      GFileInfo *info = NULL;
      const char *name;

      if (!g_file_enumerator_iterate (children, &info, NULL, NULL, &error) || info == NULL)
        break;
      name = g_file_info_get_name (info);
      /* Files next to the skills (a README) and hidden entries are not skills. */
      if (name[0] == '.' || g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
        continue;
      if (g_file_info_get_file_type (info) != G_FILE_TYPE_DIRECTORY)
        {
          g_ptr_array_add (self->errors, g_error_new (SJ_SKILL_ERROR, SJ_SKILL_ERROR_BAD_FOLDER,
                                                      _("Skill “%s”: not a folder (symbolic links are not followed)"), name));
          continue;
        }
      g_ptr_array_add (names, g_strdup (name));
    }

  /* The same order on every machine, whatever the file system's. */
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len && i < SJ_SKILL_REGISTRY_MAX_SKILLS; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(GFile) folder = g_file_get_child (dir, name);
      g_autoptr(GError) local = NULL;
      SjSkill *skill;
      SjSkill *previous;

      skill = sj_skill_load_folder (folder, origin, NULL, &local);
      if (skill == NULL)
        {
          g_ptr_array_add (self->errors, g_steal_pointer (&local));
          continue;
        }

      previous = g_hash_table_lookup (found, name);
      _sj_skill_set_overrides (skill, previous != NULL);
      g_hash_table_replace (found, (gpointer) sj_skill_get_name (skill), skill);
    }
  if (names->len > SJ_SKILL_REGISTRY_MAX_SKILLS)
    g_ptr_array_add (self->errors, g_error_new (SJ_SKILL_ERROR, SJ_SKILL_ERROR_TOO_LARGE,
                                                _("Only the first %d skills in “%s” were loaded"),
                                                SJ_SKILL_REGISTRY_MAX_SKILLS, root));
}

/**
 * sj_skill_registry_reload:
 *
 * Loads both roots again, and emits #SjSkillRegistry::changed.
 */
void
sj_skill_registry_reload (SjSkillRegistry *self)
{
  g_autoptr(GHashTable) found = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  guint removed = self->skills->len;
  GHashTableIter iter;
  gpointer value;

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  g_ptr_array_set_size (self->errors, 0);
  load_root (self, self->bundled_root, SJ_SKILL_ORIGIN_BUNDLED, found);
  load_root (self, self->user_root, SJ_SKILL_ORIGIN_USER, found);

  g_hash_table_remove_all (self->by_name);
  g_ptr_array_set_size (self->skills, 0);
  g_hash_table_iter_init (&iter, found);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      g_ptr_array_add (self->skills, value);
      g_hash_table_iter_steal (&iter);
    }
  g_ptr_array_sort (self->skills, compare_titles);
  for (guint i = 0; i < self->skills->len; i++)
    {
      SjSkill *skill = g_ptr_array_index (self->skills, i);

      g_hash_table_insert (self->by_name, (gpointer) sj_skill_get_name (skill), skill);
    }

  _sj_skill_registry_rebuild_matcher (self);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, self->skills->len);
  g_signal_emit (self, signals[CHANGED], 0);
}

const char *
sj_skill_registry_get_bundled_root (SjSkillRegistry *self)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  return self->bundled_root;
}

const char *
sj_skill_registry_get_user_root (SjSkillRegistry *self)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  return self->user_root;
}

/**
 * sj_skill_registry_get_errors:
 *
 * Returns: (transfer none) (element-type GError): why the skills that were
 *   not loaded were refused, one error per skill, from the last load
 */
GPtrArray *
sj_skill_registry_get_errors (SjSkillRegistry *self)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  return self->errors;
}

/**
 * sj_skill_registry_lookup:
 *
 * Returns: (transfer none) (nullable): the skill named @name, enabled or not
 */
SjSkill *
sj_skill_registry_lookup (SjSkillRegistry *self,
                          const char      *name)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  return name != NULL ? g_hash_table_lookup (self->by_name, name) : NULL;
}

/**
 * sj_skill_registry_list_with_tag:
 *
 * Returns: (transfer container): the enabled skills carrying @tag, by title
 */
GPtrArray *
sj_skill_registry_list_with_tag (SjSkillRegistry *self,
                                 const char      *tag)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  for (guint i = 0; i < self->skills->len; i++)
    {
      SjSkill *skill = g_ptr_array_index (self->skills, i);

      if (sj_skill_has_tag (skill, tag) && sj_skill_registry_is_enabled (self, sj_skill_get_name (skill)))
        g_ptr_array_add (list, g_object_ref (skill));
    }

  return list;
}

/**
 * sj_skill_registry_search:
 * @query: words, all of which must occur in the name, title, description,
 *   tags or triggers (case-insensitive); empty lists every skill
 *
 * Returns: (transfer container): the skills that match, by title
 */
GPtrArray *
sj_skill_registry_search (SjSkillRegistry *self,
                          const char      *query)
{
  g_auto(GStrv) words = g_str_tokenize_and_fold (query ? query : "", NULL, NULL);
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  for (guint i = 0; i < self->skills->len; i++)
    {
      SjSkill *skill = g_ptr_array_index (self->skills, i);
      g_autofree char *tags = g_strjoinv (" ", (GStrv) sj_skill_get_tags (skill));
      g_autofree char *triggers = g_strjoinv (" ", (GStrv) sj_skill_get_triggers (skill));
      g_autofree char *text = g_strjoin (" ", sj_skill_get_name (skill), sj_skill_get_title (skill),
                                         sj_skill_get_description (skill), tags, triggers, NULL);
      g_autofree char *folded = g_utf8_casefold (text, -1);
      gboolean all = TRUE;

      for (guint w = 0; words[w] != NULL && all; w++)
        all = strstr (folded, words[w]) != NULL;
      if (all)
        g_ptr_array_add (list, g_object_ref (skill));
    }

  return list;
}

/**
 * sj_skill_registry_suggest:
 *
 * Returns: (transfer full): up to three skill names close to @name (a
 *   typo, a plural, a prefix), for the model's error message
 */
GStrv
sj_skill_registry_suggest (SjSkillRegistry *self,
                           const char      *name)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *term = g_ascii_strdown (name ? name : "", MIN (strlen (name ? name : ""), SJ_FUZZY_MAX_TERM));
  guint64 term_mask = sj_fuzzy_mask (term, strlen (term));
  guint n = 0;

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  for (SjMatchKind kind = SJ_MATCH_EXACT; kind <= SJ_MATCH_SUBSTRING && n < 3 && *term != '\0'; kind++)
    for (guint i = 0; i < self->skills->len && n < 3; i++)
      {
        const char *candidate = sj_skill_get_name (g_ptr_array_index (self->skills, i));
        guint distance = 0;

        if (sj_fuzzy_match_name (term, strlen (term), term_mask, candidate, strlen (candidate),
                                 sj_fuzzy_mask (candidate, strlen (candidate)), &distance) == kind)
          {
            g_strv_builder_add (builder, candidate);
            n++;
          }
      }

  return g_strv_builder_end (builder);
}

gboolean
sj_skill_registry_is_enabled (SjSkillRegistry *self,
                              const char      *name)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  return !g_hash_table_contains (self->disabled, name);
}

/**
 * sj_skill_registry_set_enabled:
 *
 * Enables or disables a skill (by name, so that the choice survives a
 * reload and an override), in the settings when there are some.
 */
void
sj_skill_registry_set_enabled (SjSkillRegistry *self,
                               const char      *name,
                               gboolean         enabled)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;
  GHashTableIter iter;
  gpointer key;

  g_assert (SJ_IS_SKILL_REGISTRY (self));
  g_return_if_fail (name != NULL);

  if (enabled == sj_skill_registry_is_enabled (self, name))
    return;
  if (enabled)
    g_hash_table_remove (self->disabled, name);
  else
    g_hash_table_add (self->disabled, g_strdup (name));

  if (self->settings != NULL)
    {
      g_hash_table_iter_init (&iter, self->disabled);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_strv_builder_add (builder, key);
      names = g_strv_builder_end (builder);
      /* Sorted, so the key reads the same whatever the hash order. */
      qsort (names, g_strv_length (names), sizeof (char *), compare_strings);
      g_signal_handlers_block_by_func (self->settings, disabled_changed_cb, self);
      g_settings_set_strv (self->settings, "disabled-skills", (const char * const *) names);
      g_signal_handlers_unblock_by_func (self->settings, disabled_changed_cb, self);
    }

  _sj_skill_registry_rebuild_matcher (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

/**
 * sj_skill_registry_match:
 *
 * Returns: (transfer container): the enabled skills whose triggers occur
 *   in @message, highest priority first
 */
GPtrArray *
sj_skill_registry_match (SjSkillRegistry *self,
                         const char      *message)
{
  g_assert (SJ_IS_SKILL_REGISTRY (self));

  return sj_skill_matcher_match (self->matcher, message ? message : "");
}
