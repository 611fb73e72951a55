/* bench-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * bench/skills: what skills cost a turn.
 *
 * 1. Trigger matching, which runs on every user message before the model
 *    is asked: 200 generated skills of 8 triggers each (single words and
 *    two- and three-word phrases), matched against a few hundred
 *    realistic messages by SjSkillMatcher, side by side with the naive
 *    peer a first implementation would write, one case-insensitive GRegex
 *    per trigger with \b boundaries (and no stemming, so it does less).
 *    Both run on the same message one after the other, after a warm-up
 *    pass, so they share the machine's noise. Medians and p99 per
 *    message, and the ratio. The target: p99 under 1 ms.
 *
 * 2. Prompt growth: for every bundled skill in data/skills (skipped when
 *    there are none) and every fixture skill, the characters (and about
 *    a quarter of that in tokens) one active skill adds to a user message
 *    (its <skills> block), and what an activate_skills result carries
 *    (rules, templates, patterns).
 *
 * Usage: bench-skills [--messages N] [--passes N] [--json FILE]
 *                     [--check-targets] [--skills-dir DIR]...
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "sj-skill-matcher.h"
#include "sj-skill-registry.h"

#define N_SKILLS    200
#define N_TRIGGERS  8
#define TARGET_US   1000.0

static const char * const words[] = {
  "jazz", "dub", "house", "techno", "ambient", "trance", "garage", "grime", "drill", "trap",
  "funk", "soul", "disco", "reggae", "dancehall", "cumbia", "samba", "bossa", "afrobeat", "highlife",
  "gqom", "amapiano", "jungle", "breakcore", "idm", "glitch", "vaporwave", "synthwave", "chillwave", "shoegaze",
  "drone", "noise", "industrial", "ebm", "electro", "acid", "minimal", "dubstep", "footwork", "juke",
  "hyperpop", "lofi", "boombap", "gfunk", "krautrock", "motorik", "baroque", "gamelan", "raga", "flamenco",
  "sidechain", "arpeggio", "polyrhythm", "euclidean", "swing", "shuffle", "stutter", "gating", "tape", "vinyl",
};

static const char * const fillers[] = {
  "make", "it", "a", "bit", "more", "less", "the", "drums", "bass", "hats", "add", "some", "please", "can", "you",
  "slower", "faster", "louder", "quieter", "with", "and", "then", "on", "every", "bar", "cycle", "keep", "tempo",
  "reverb", "delay", "filter", "pads", "chords", "melody", "kick", "snare", "break", "drop", "build", "groove",
};

/* Messages the way musicians type them: mostly plain requests, some
 * naming a style or a technique, now and then a long paragraph. */
static GPtrArray *
make_messages (guint n,
               GRand *rand)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    {
      GString *text = g_string_new (NULL);
      guint length = g_rand_int_range (rand, 3, i % 25 == 0 ? 80 : 16);

      for (guint w = 0; w < length; w++)
        {
          const char *word = g_rand_int_range (rand, 0, 6) == 0 ? words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]
                                                                : fillers[g_rand_int_range (rand, 0, G_N_ELEMENTS (fillers))];

          g_string_append_printf (text, "%s%s", w > 0 ? " " : "", word);
          /* Inflections and punctuation as typed. */
          if (g_rand_int_range (rand, 0, 10) == 0)
            g_string_append (text, g_rand_boolean (rand) ? "y" : "ier");
          if (g_rand_int_range (rand, 0, 12) == 0)
            g_string_append_c (text, ',');
        }
      g_string_append_c (text, g_rand_boolean (rand) ? '.' : '?');
      g_ptr_array_add (messages, g_string_free (text, FALSE));
    }

  return messages;
}

/* Skill i's triggers: words and phrases over the vocabulary, distinct
 * per skill ("jazz 17", "deep jazz 17") so that every skill is its own. */
static GStrv
make_triggers (guint  skill,
               GRand *rand)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint t = 0; t < N_TRIGGERS; t++)
    {
      const char *a = words[(skill * 7 + t) % G_N_ELEMENTS (words)];
      const char *b = fillers[g_rand_int_range (rand, 0, G_N_ELEMENTS (fillers))];
      g_autofree char *trigger = NULL;

      switch (t % 3)
        {
        case 0:
          trigger = g_strdup (t == 0 ? a : words[(skill + t) % G_N_ELEMENTS (words)]);
          break;
        case 1:
          trigger = g_strdup_printf ("%s %s", b, a);
          break;
        default:
          trigger = g_strdup_printf ("%s %s style", a, b);
          break;
        }
      g_strv_builder_add (builder, trigger);
    }

  return g_strv_builder_end (builder);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static double
percentile (GArray *times,
            double  p)
{
  g_array_sort (times, compare_doubles);
  return g_array_index (times, double, MIN (times->len - 1, (guint) (p * times->len)));
}

typedef struct
{
  GPtrArray *regexes;  /* of GRegex */
  GArray    *owners;   /* of guint: the skill of each regex */
} Naive;

static guint
naive_match (Naive      *naive,
             const char *message,
             gboolean   *hit)
{
  guint n = 0;

  memset (hit, 0, N_SKILLS * sizeof (gboolean));
  for (guint r = 0; r < naive->regexes->len; r++)
    {
      guint owner = g_array_index (naive->owners, guint, r);

      if (!hit[owner] && g_regex_match (g_ptr_array_index (naive->regexes, r), message, 0, NULL))
        {
          hit[owner] = TRUE;
          n++;
        }
    }

  return n;
}

static void
bench_matching (guint        n_messages,
                guint        passes,
                JsonBuilder *json,
                gboolean    *target_met)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  g_autoptr(SjSkillMatcher) matcher = sj_skill_matcher_new ();
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GArray) ours = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) peer = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GPtrArray) triggers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  Naive naive = { g_ptr_array_new_with_free_func ((GDestroyNotify) g_regex_unref), g_array_new (FALSE, FALSE, sizeof (guint)) };
  gboolean hit[N_SKILLS];
  guint matched = 0, naive_matched = 0;
  double p50, p99, peer_p50, peer_p99, mean, peer_mean;
  gint64 start;

  start = g_get_monotonic_time ();
  for (guint s = 0; s < N_SKILLS; s++)
    {
      GStrv list = make_triggers (s, rand);

      g_ptr_array_add (triggers, list);
      sj_skill_matcher_add (matcher, GUINT_TO_POINTER (s + 1), 50 + (int) (s % 7), (const char * const *) list);
    }
  g_print ("Compiled %u triggers of %d skills in %.2f ms\n", sj_skill_matcher_get_n_triggers (matcher), N_SKILLS,
           (g_get_monotonic_time () - start) / 1000.0);

  for (guint s = 0; s < N_SKILLS; s++)
    for (GStrv t = g_ptr_array_index (triggers, s); *t != NULL; t++)
      {
        g_autofree char *escaped = g_regex_escape_string (*t, -1);
        g_autofree char *pattern = g_strdup_printf ("\\b%s\\b", escaped);

        g_ptr_array_add (naive.regexes, g_regex_new (pattern, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL));
        g_array_append_val (naive.owners, s);
      }

  messages = make_messages (n_messages, rand);

  /* Warm-up: caches, the allocator, the regexes' JIT. */
  for (guint i = 0; i < messages->len; i++)
    {
      g_autoptr(GPtrArray) result = sj_skill_matcher_match (matcher, g_ptr_array_index (messages, i));
      naive_match (&naive, g_ptr_array_index (messages, i), hit);
    }

  for (guint pass = 0; pass < passes; pass++)
    for (guint i = 0; i < messages->len; i++)
      {
        const char *message = g_ptr_array_index (messages, i);
        g_autoptr(GPtrArray) result = NULL;
        double us;

        start = g_get_monotonic_time ();
        result = sj_skill_matcher_match (matcher, message);
        us = g_get_monotonic_time () - start;
        g_array_append_val (ours, us);
        matched += result->len > 0;

        start = g_get_monotonic_time ();
        naive_matched += naive_match (&naive, message, hit) > 0;
        us = g_get_monotonic_time () - start;
        g_array_append_val (peer, us);
      }

  /* Whole passes, for a mean below the clock's microsecond. */
  {
    gint64 ours_us = 0, peer_us = 0;

    for (guint pass = 0; pass < passes; pass++)
      {
        start = g_get_monotonic_time ();
        for (guint i = 0; i < messages->len; i++)
          g_ptr_array_unref (sj_skill_matcher_match (matcher, g_ptr_array_index (messages, i)));
        ours_us += g_get_monotonic_time () - start;

        start = g_get_monotonic_time ();
        for (guint i = 0; i < messages->len; i++)
          naive_match (&naive, g_ptr_array_index (messages, i), hit);
        peer_us += g_get_monotonic_time () - start;
      }
    mean = (double) ours_us / (messages->len * passes);
    peer_mean = (double) peer_us / (messages->len * passes);
  }

  p50 = percentile (ours, 0.5);
  p99 = percentile (ours, 0.99);
  peer_p50 = percentile (peer, 0.5);
  peer_p99 = percentile (peer, 0.99);

  g_print ("\nTrigger matching, %d skills x %d triggers, %u messages x %u passes\n", N_SKILLS, N_TRIGGERS,
           messages->len, passes);
  g_print ("  %-34s %10s %10s %10s\n", "", "mean (us)", "p50 (us)", "p99 (us)");
  g_print ("  %-34s %10.2f %10.1f %10.1f\n", "SjSkillMatcher (stems, hash)", mean, p50, p99);
  g_print ("  %-34s %10.2f %10.1f %10.1f\n", "peer: one GRegex per trigger", peer_mean, peer_p50, peer_p99);
  g_print ("  %-34s %9.1fx %9.1fx %9.1fx\n", "peer / ours", peer_mean / MAX (mean, 0.01),
           peer_p50 / MAX (p50, 0.1), peer_p99 / MAX (p99, 0.1));
  g_print ("  messages with a match: ours %u, peer %u (the peer has no stemming)\n", matched, naive_matched);
  g_print ("  target p99 < %.0f us: %s\n", TARGET_US, p99 < TARGET_US ? "met" : "MISSED");
  *target_met = p99 < TARGET_US;

  json_builder_set_member_name (json, "matching");
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "skills");
  json_builder_add_int_value (json, N_SKILLS);
  json_builder_set_member_name (json, "messages");
  json_builder_add_int_value (json, messages->len * passes);
  json_builder_set_member_name (json, "mean_us");
  json_builder_add_double_value (json, mean);
  json_builder_set_member_name (json, "peer_mean_us");
  json_builder_add_double_value (json, peer_mean);
  json_builder_set_member_name (json, "p50_us");
  json_builder_add_double_value (json, p50);
  json_builder_set_member_name (json, "p99_us");
  json_builder_add_double_value (json, p99);
  json_builder_set_member_name (json, "peer_p50_us");
  json_builder_add_double_value (json, peer_p50);
  json_builder_set_member_name (json, "peer_p99_us");
  json_builder_add_double_value (json, peer_p99);
  json_builder_end_object (json);

  g_ptr_array_unref (naive.regexes);
  g_array_unref (naive.owners);
}

static gsize
snippets_size (GPtrArray *snippets)
{
  gsize size = 0;

  for (guint i = 0; i < snippets->len; i++)
    {
      SjSkillSnippet *snippet = g_ptr_array_index (snippets, i);

      size += strlen (snippet->name) + strlen (snippet->description) + strlen (snippet->code);
    }

  return size;
}

static void
bench_growth (const char  *root,
              JsonBuilder *json)
{
  g_autoptr(SjSkillRegistry) registry = sj_skill_registry_new_for_roots (root, NULL, NULL);
  GPtrArray *errors = sj_skill_registry_get_errors (registry);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (registry));
  gsize total = 0, largest = 0;

  g_print ("\nPrompt growth per active skill, %s\n", root);
  for (guint i = 0; i < errors->len; i++)
    g_print ("  refused: %s\n", ((GError *) g_ptr_array_index (errors, i))->message);
  if (n == 0)
    {
      g_print ("  no skills there: skipped\n");
      return;
    }

  g_print ("  %-26s %12s %8s %16s\n", "skill", "block chars", "~tokens", "activation chars");
  json_builder_set_member_name (json, root);
  json_builder_begin_array (json);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SjSkill) skill = g_list_model_get_item (G_LIST_MODEL (registry), i);
      g_autoptr(GPtrArray) choices = g_ptr_array_new ();
      SjSkillChoice choice = { skill, SJ_SKILL_USE_AUTO };
      g_autofree char *block = NULL;
      g_autofree char *empty = sj_skill_choices_format (NULL);
      gsize chars, activation;

      /* One skill alone: the block with its <skills> wrapper. */
      g_ptr_array_add (choices, &choice);
      block = sj_skill_choices_format (choices);
      chars = g_utf8_strlen (block, -1) - g_utf8_strlen (empty, -1) + 1;  /* and the newline before it */
      activation = strlen (sj_skill_get_rules (skill)) + snippets_size (sj_skill_get_templates (skill)) +
                   snippets_size (sj_skill_get_patterns (skill));
      total += chars;
      largest = MAX (largest, chars);

      g_print ("  %-26s %12zu %8zu %16zu\n", sj_skill_get_name (skill), chars, chars / 4, activation);
      json_builder_begin_object (json);
      json_builder_set_member_name (json, "name");
      json_builder_add_string_value (json, sj_skill_get_name (skill));
      json_builder_set_member_name (json, "chars");
      json_builder_add_int_value (json, chars);
      json_builder_set_member_name (json, "activation_chars");
      json_builder_add_int_value (json, activation);
      json_builder_end_object (json);
    }
  json_builder_end_array (json);

  g_print ("  %u skills: mean %zu chars (~%zu tokens) per active skill, largest %zu; budget %d chars of rules per turn\n",
           n, total / n, total / n / 4, largest, SJ_SKILL_RULES_BUDGET);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("- what skills cost a turn");
  g_autoptr(JsonBuilder) json = json_builder_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) dirs = NULL;
  g_autofree char *json_file = NULL;
  int n_messages = 400, passes = 5;
  gboolean check_targets = FALSE, target_met = TRUE;
  GOptionEntry entries[] = {
    { "messages", 0, 0, G_OPTION_ARG_INT, &n_messages, "Messages to match (400)", "N" },
    { "passes", 0, 0, G_OPTION_ARG_INT, &passes, "Timed passes over them (5)", "N" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json_file, "Write the figures to FILE", "FILE" },
    { "check-targets", 0, 0, G_OPTION_ARG_NONE, &check_targets, "Fail when p99 is 1 ms or more", NULL },
    { "skills-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "Skills to measure (data/skills and the fixtures)", "DIR" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (dirs == NULL)
    {
      dirs = g_new0 (char *, 3);
      dirs[0] = g_strdup (SJ_SOURCE_ROOT "/data/skills");
      dirs[1] = g_strdup (SJ_SOURCE_ROOT "/tests/data/skills/bundled");
    }

  json_builder_begin_object (json);
  bench_matching (MAX (n_messages, 1), MAX (passes, 1), json, &target_met);
  json_builder_set_member_name (json, "growth");
  json_builder_begin_object (json);
  for (guint i = 0; dirs[i] != NULL; i++)
    bench_growth (dirs[i], json);
  json_builder_end_object (json);
  json_builder_end_object (json);

  if (json_file != NULL)
    {
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = json_builder_get_root (json);

      json_generator_set_root (generator, root);
      json_generator_set_pretty (generator, TRUE);
      if (!json_generator_to_file (generator, json_file, &error))
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
    }

  return check_targets && !target_met ? 1 : 0;
}
