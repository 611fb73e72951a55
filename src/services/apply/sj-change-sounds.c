/* sj-change-sounds.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sample files a change will play, before it lands. The dry-run lists
 * them (its result's sample uses: pack, path and sound); the sound
 * cache says how each would play now. A change that needs a file which
 * cannot be had (not cached, no download possible, no drum-kit voice) is
 * rejected with SOUND_UNAVAILABLE and sounds of its kind that do play; the
 * others land once the page has loaded them (preload.mjs), and the result
 * says which were ready, which had to load and which the kit plays.
 *
 * The sounds of a sample map the code loads from the network are judged
 * the same way, a sound at a time (SjRemoteSamples knows its files once
 * the map has been fetched); a map not fetched yet must be fetchable.
 *
 * A file the cache believed it could download may still fail when the page
 * loads it (a resolver that fails, a host that answers an error page): the
 * page then refuses the agent's change before it swaps
 * (sj_change_sounds_read_refusal()), and the rejection names each sound
 * once, with the page's reason and sounds that play now.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-change-sounds.h"
#include "sj-json.h"

#define MAX_ALTERNATIVES 6

/* What plays with no network whatever is cached: the kit's voices for
 * drums, the synthesizers for everything else. */
static const char * const drum_fallbacks[] = { "bd", "sd", "hh", "oh", "cp", "rim", NULL };
static const char * const synth_fallbacks[] = { "triangle", "sawtooth", "square", "sine", "supersaw", NULL };

static gboolean
plays_now (SjSoundCache *cache,
           const char   *name)
{
  switch (sj_sound_cache_get_sound_availability (cache, name, NULL))
    {
    case SJ_SOUND_AVAILABILITY_BUILT_IN:
    case SJ_SOUND_AVAILABILITY_CACHED:
    case SJ_SOUND_AVAILABILITY_KIT:
      return TRUE;
    case SJ_SOUND_AVAILABILITY_DOWNLOAD:
    case SJ_SOUND_AVAILABILITY_UNAVAILABLE:
    default:
      return FALSE;
    }
}

static void
add_alternative (GPtrArray    *out,
                 SjSoundCache *cache,
                 const char   *name,
                 const char   *instead_of)
{
  if (out->len >= MAX_ALTERNATIVES || g_ascii_strcasecmp (name, instead_of) == 0)
    return;
  for (guint i = 0; i < out->len; i++)
    if (g_ascii_strcasecmp (g_ptr_array_index (out, i), name) == 0)
      return;
  if (plays_now (cache, name))
    g_ptr_array_add (out, g_strdup (name));
}

/* Sounds that play now, close to @name by name first, then of its kind. */
static GStrv
alternatives_for (SjSoundCache *cache,
                  SjKnowledge  *knowledge,
                  const char   *name,
                  gboolean      drums)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) close = NULL;
  const char * const *fallbacks = drums ? drum_fallbacks : synth_fallbacks;

  if (knowledge != NULL)
    close = sj_knowledge_suggest (knowledge, name, SJ_KNOWLEDGE_DOMAIN_SOUNDS, 40);
  for (guint i = 0; close != NULL && close[i] != NULL && out->len < MAX_ALTERNATIVES / 2; i++)
    add_alternative (out, cache, close[i], name);
  for (guint i = 0; fallbacks[i] != NULL; i++)
    add_alternative (out, cache, fallbacks[i], name);

  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

static SjChangeUnknownName *
unavailable_add (GPtrArray    *unavailable,
                 const char   *label,
                 SjSoundCache *cache,
                 SjKnowledge  *knowledge,
                 const char   *name,
                 gboolean      drums)
{
  g_auto(GStrv) alternatives = NULL;
  SjChangeUnknownName *sound;

  for (guint i = 0; i < unavailable->len; i++)
    if (g_str_equal (((SjChangeUnknownName *) g_ptr_array_index (unavailable, i))->name, label))
      return g_ptr_array_index (unavailable, i);
  alternatives = alternatives_for (cache, knowledge, name, drums);
  sound = sj_change_unknown_name_new (label, NULL, 0, 0, (const char * const *) alternatives);
  g_ptr_array_add (unavailable, sound);
  return sound;
}

/* The strings of @strv, each once. */
static GStrv
labels (const char * const *strv)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    if (g_hash_table_add (seen, (gpointer) strv[i]))
      g_strv_builder_add (builder, strv[i]);
  return g_strv_builder_end (builder);
}

/* The sounds of sample maps the code loads from the network. Those of a
 * map fetched before play as their files do; those of a map not fetched
 * yet (the report's loadingSounds) wait for the page to fetch it, which
 * needs downloads. */
static void
classify_remote (const SjDryRunResult *report,
                 SjSoundCache *cache,
                 SjKnowledge  *knowledge,
                 GStrvBuilder *ready,
                 GStrvBuilder *loading,
                 GPtrArray    *unavailable)
{
  SjRemoteSamples *remote = knowledge != NULL ? sj_knowledge_get_remote_samples (knowledge) : NULL;
  SjSoundLibrary *library = sj_sound_cache_get_library (cache);
  g_auto(GStrv) pending = labels ((const char * const *) report->loading_sounds);
  g_auto(GStrv) sounds = labels ((const char * const *) report->sounds);

  for (guint i = 0; pending[i] != NULL; i++)
    {
      if (sj_sound_cache_get_online (cache))
        g_strv_builder_add (loading, pending[i]);
      else
        unavailable_add (unavailable, pending[i], cache, knowledge, pending[i], FALSE);
    }

  for (guint i = 0; remote != NULL && sounds[i] != NULL; i++)
    {
      SjSoundAvailability availability;

      if (sj_sound_library_lookup (library, sounds[i]) != NULL ||
          !sj_remote_samples_get_sound_availability (remote, sounds[i], &availability, NULL))
        continue;
      if (availability == SJ_SOUND_AVAILABILITY_CACHED)
        g_strv_builder_add (ready, sounds[i]);
      else if (availability == SJ_SOUND_AVAILABILITY_DOWNLOAD)
        g_strv_builder_add (loading, sounds[i]);
      else
        unavailable_add (unavailable, sounds[i], cache, knowledge, sounds[i], FALSE);
    }
}

/**
 * sj_change_sounds_classify:
 * @sounds: the result's sounds, filled in
 * @report: the dry-run report of the change
 * @unavailable: (element-type SjChangeUnknownName): what cannot be had,
 *   each with alternatives that play now
 *
 * Sorts the files the change plays by how they would play now.
 */
void
sj_change_sounds_classify (SjChangeSounds       *sounds,
                           const SjDryRunResult *report,
                           SjSoundCache   *cache,
                           SjKnowledge    *knowledge,
                           GPtrArray      *unavailable)
{
  g_autoptr(GStrvBuilder) ready = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) loading = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) kit = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SjSoundLibrary *library;

  g_return_if_fail (sounds != NULL);
  g_return_if_fail (report != NULL);
  g_return_if_fail (SJ_IS_SOUND_CACHE (cache));
  g_return_if_fail (unavailable != NULL);

  library = sj_sound_cache_get_library (cache);
  for (guint i = 0; i < report->sample_uses->len; i++)
    {
      const SjDryRunSampleUse *use = g_ptr_array_index (report->sample_uses, i);
      const SjLibraryFile *file;
      const char *name = use->sound;
      g_autofree char *label = NULL;

      /* A file outside the library (the code's own samples() from a URL)
       * is the page's business, as in Strudel. */
      if ((file = sj_sound_library_lookup_file (library, use->pack, use->path)) == NULL)
        continue;

      label = g_strdup_printf ("%s:%u", name != NULL ? name : file->sound->name, file->variant);
      if (!g_hash_table_add (seen, g_strdup (label)))
        continue;

      switch (sj_sound_cache_get_file_availability (cache, file))
        {
        case SJ_SOUND_AVAILABILITY_CACHED:
        case SJ_SOUND_AVAILABILITY_BUILT_IN:
          g_strv_builder_add (ready, label);
          break;
        case SJ_SOUND_AVAILABILITY_DOWNLOAD:
          g_strv_builder_add (loading, label);
          break;
        case SJ_SOUND_AVAILABILITY_KIT:
          g_strv_builder_add (kit, label);
          break;
        case SJ_SOUND_AVAILABILITY_UNAVAILABLE:
        default:
          unavailable_add (unavailable, label, cache, knowledge, file->sound->name,
                           g_strcmp0 (file->sound->tag, "drum-machines") == 0);
          break;
        }
    }

  classify_remote (report, cache, knowledge, ready, loading, unavailable);

  g_strfreev (sounds->ready);
  g_strfreev (sounds->loading);
  g_strfreev (sounds->kit);
  sounds->ready = g_strv_builder_end (ready);
  sounds->loading = g_strv_builder_end (loading);
  sounds->kit = g_strv_builder_end (kit);
}

/**
 * sj_change_sounds_read_page:
 * @swap: the page's answer to the swap
 *
 * Adds what the page saw while it loaded the change's sounds: which
 * failed, which it stopped waiting for, and how long it waited.
 */
void
sj_change_sounds_read_page (SjChangeSounds     *sounds,
                            const SjSwapResult *swap)
{
  g_return_if_fail (sounds != NULL);
  g_return_if_fail (swap != NULL);

  if (!swap->has_sounds)
    return;

  g_strfreev (sounds->failed);
  g_strfreev (sounds->late);
  sounds->failed = g_strdupv (swap->failed);
  sounds->late = g_strdupv (swap->late);
  if (!isnan (swap->load_ms))
    sounds->load_ms = swap->load_ms;
}

/**
 * sj_change_sounds_read_refusal:
 * @swap: the page's answer (%SJ_SWAP_UNAVAILABLE) to a swap it refused
 * @cache: (nullable): the sound cache, for alternatives that play now
 * @unavailable: (element-type SjChangeUnknownName): filled with each sound
 *   that failed, once ("piano:0", however many of its files failed), with
 *   the page's reason
 *
 * Returns: (transfer full): "piano:0 (its reason); bd:3 (…)", for the
 *   rejection's message
 */
char *
sj_change_sounds_read_refusal (const SjSwapResult *swap,
                               SjSoundCache       *cache,
                               SjKnowledge        *knowledge,
                               GPtrArray          *unavailable)
{
  g_autoptr(GString) summary = g_string_new (NULL);
  const char * const *failed;
  SjSoundLibrary *library;

  g_return_val_if_fail (swap != NULL, NULL);
  g_return_val_if_fail (unavailable != NULL, NULL);

  failed = (const char * const *) swap->failed;
  library = cache != NULL ? sj_sound_cache_get_library (cache) : NULL;

  for (guint i = 0; failed[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (failed[i], strcspn (failed[i], ":"));
      const SjLibrarySound *sound = library != NULL ? sj_sound_library_lookup (library, name) : NULL;
      const char *reason = sj_swap_result_get_reason (swap, failed[i]);
      SjChangeUnknownName *entry;
      guint before = unavailable->len;

      if (cache != NULL)
        entry = unavailable_add (unavailable, failed[i], cache, knowledge, name,
                                 sound != NULL && g_strcmp0 (sound->tag, "drum-machines") == 0);
      else
        {
          entry = NULL;
          for (guint k = 0; k < unavailable->len && entry == NULL; k++)
            if (g_str_equal (((SjChangeUnknownName *) g_ptr_array_index (unavailable, k))->name, failed[i]))
              entry = g_ptr_array_index (unavailable, k);
          if (entry == NULL)
            g_ptr_array_add (unavailable, entry = sj_change_unknown_name_new (failed[i], NULL, 0, 0, NULL));
        }
      if (unavailable->len == before)
        continue;
      if (reason != NULL && entry->reason == NULL)
        entry->reason = g_strdup (reason);

      if (summary->len > 0)
        g_string_append (summary, "; ");
      g_string_append (summary, failed[i]);
      if (reason != NULL)
        g_string_append_printf (summary, " (%s)", reason);
    }

  return g_string_free (g_steal_pointer (&summary), FALSE);
}
