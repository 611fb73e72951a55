/* test-sound-library.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjSoundLibrary, the registry of every sound the Strudel website registers
 * (data/sounds), and the sounds index filled from it: the sounds tab's
 * counts, every map's sounds, resolving notes to files as superdough does,
 * bank aliases, URLs, and the load time. The counts below were computed
 * once from upstream's online sound map (-Dupstream_reference, optional
 * here: /sound-library/online-map compares against it when present).
 */

#include "config.h"

#include <math.h>

#include "sj-sound-library.h"
#include "sj-sounds-index.h"

static SjSoundLibrary *library;

static JsonObject *
read_json (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* The sounds tab's categories over the bundled sounds: what the Sounds
 * page shows before the page has ever run, and what the website shows. */
static void
test_category_counts (void)
{
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();

  sj_sounds_index_load_bundled (sounds);

  g_assert_cmpuint (sj_sounds_index_get_n_sounds (sounds), ==, 1653);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_ALL), ==, 1653);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_DRUMS), ==, 1357);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_SAMPLES), ==, 138);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_SYNTHS), ==, 150);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_WAVETABLES), ==, 7);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_USER), ==, 0);
  g_assert_cmpstr (sj_sounds_index_lookup (sounds, "bus")->type, ==, "input");

  g_assert_cmpint (sj_sounds_index_lookup (sounds, "bd")->count, ==, 8);
  g_assert_cmpstr (sj_sounds_index_lookup (sounds, "bd")->tag, ==, "drum-machines");
  g_assert_cmpint (sj_sounds_index_lookup (sounds, "piano")->count, ==, 29);
  g_assert_null (sj_sounds_index_lookup (sounds, "piano")->tag);
  g_assert_cmpint (sj_sounds_index_lookup (sounds, "wt_vgame")->count, ==, 11);
  g_assert_cmpstr (sj_sounds_index_lookup (sounds, "wt_vgame")->type, ==, "wavetable");
  g_assert_cmpint (sj_sounds_index_lookup (sounds, "gm_piano")->count, >, 5);
  g_assert_null (sj_sounds_index_lookup (sounds, "_base"));
  /* EmuSP12.json is not registered: its bd would replace uzu-drumkit's. */
  g_assert_cmpint (sj_sounds_index_lookup (sounds, "emusp12_bd")->count, ==, 14);

  /* Banks are the drum machines and their aliases, not every prefix. */
  g_assert_nonnull (sj_sounds_index_lookup_bank (sounds, "RolandTR909"));
  g_assert_nonnull (sj_sounds_index_lookup_bank (sounds, "tr909"));
  g_assert_null (sj_sounds_index_lookup_bank (sounds, "xylophone"));
  g_assert_null (sj_sounds_index_lookup_bank (sounds, "wt"));
  g_assert_cmpstr (sj_sounds_index_lookup (sounds, "tr909_bd")->bank, ==, "tr909");
  g_assert_cmpstr (sj_sounds_index_lookup (sounds, "rolandtr909_bd")->bank_sound, ==, "bd");
}

/* Every sound of every registered map is in the library, with its pack,
 * files and the website's options. */
static void
test_every_map_sound (void)
{
  g_autoptr(JsonObject) index = read_json (SJ_SOUNDS_DATA "/library.json");
  JsonArray *packs = json_object_get_array_member (index, "packs");
  guint total = 0;

  g_assert_cmpuint (json_array_get_length (packs), ==, 7);
  for (guint p = 0; p < json_array_get_length (packs); p++)
    {
      JsonObject *pack = json_array_get_object_element (packs, p);
      JsonObject *options = json_object_get_object_member (pack, "options");
      g_autofree char *path = g_build_filename (SJ_SOUNDS_DATA, "maps",
                                                json_object_get_string_member (pack, "map"), NULL);
      g_autoptr(JsonObject) map = read_json (path);
      const char *tag = json_object_get_string_member_with_default (options, "tag", NULL);
      JsonObjectIter iter;
      const char *name;
      JsonNode *node;

      /* The upstream base is the map's own. */
      g_assert_cmpstr (json_object_get_string_member (pack, "base"), ==,
                       json_object_get_string_member (map, "_base"));
      g_assert_true (sj_sound_library_has_pack (library, json_object_get_string_member (pack, "id")));

      json_object_iter_init (&iter, map);
      while (json_object_iter_next (&iter, &name, &node))
        {
          g_autofree char *lower = g_ascii_strdown (name, -1);
          const SjLibrarySound *sound;
          guint count;

          if (g_str_equal (name, "_base"))
            continue;
          sound = sj_sound_library_lookup (library, lower);
          g_assert_nonnull (sound);
          g_assert_cmpstr (sound->pack, ==, json_object_get_string_member (pack, "id"));
          g_assert_null (sound->alias_of);
          g_assert_cmpstr (sound->tag, ==, tag);
          g_assert_true (sound->prebake);
          g_assert_cmpstr (sound->type, ==, g_str_has_prefix (lower, "wt_") ? "wavetable" : "sample");
          count = JSON_NODE_HOLDS_ARRAY (node) ? json_array_get_length (json_node_get_array (node))
                                               : json_object_get_size (json_node_get_object (node));
          g_assert_cmpuint (sound->count, ==, count);
          total++;
        }
    }

  g_assert_cmpuint (total, ==, 1357 + 138 + 7 - 645);
  g_assert_true (sj_sound_library_has_pack (library, SJ_SOUND_LIBRARY_SOUNDFONTS));
  g_assert_false (sj_sound_library_has_pack (library, "EmuSP12"));
  g_assert_false (sj_sound_library_has_pack (library, ".."));
}

static void
assert_resolves (const char *sound,
                 double      n,
                 double      midi,
                 const char *pack,
                 const char *path)
{
  SjLibraryFile file;

  g_assert_true (sj_sound_library_resolve (library, sound, n, midi, &file));
  g_assert_cmpstr (file.pack, ==, pack);
  g_assert_cmpstr (file.path, ==, path);
}

/* getCommonSampleInfo(): n rounded as Math.round, modulo the files. */
static void
test_resolve_samples (void)
{
  const SjLibrarySound *bd = sj_sound_library_lookup (library, "bd");

  g_assert_cmpstr (bd->pack, ==, "uzu-drumkit");
  g_assert_cmpuint (bd->n_files, ==, 8);
  assert_resolves ("bd", 0, NAN, "uzu-drumkit", "bd/10_bd_switchangel.wav");
  assert_resolves ("bd", 3, NAN, "uzu-drumkit", "bd/13_bd_mot4i.wav");
  assert_resolves ("bd", 8, NAN, "uzu-drumkit", "bd/10_bd_switchangel.wav");
  assert_resolves ("bd", 11, NAN, "uzu-drumkit", "bd/13_bd_mot4i.wav");
  assert_resolves ("bd", -1, NAN, "uzu-drumkit", "bd/17_bd_switchangel.wav");
  assert_resolves ("bd", 2.5, NAN, "uzu-drumkit", "bd/13_bd_mot4i.wav");
  assert_resolves ("bd", -2.5, NAN, "uzu-drumkit", "bd/16_bd_switchangel.wav");  /* -2 → 6 */
  assert_resolves ("bd", NAN, NAN, "uzu-drumkit", "bd/10_bd_switchangel.wav");
  assert_resolves ("BD", 1, 60, "uzu-drumkit", "bd/11_bd_mot4i.wav");            /* no pitch for arrays */
  assert_resolves ("casio", 4, NAN, "dirt-samples", "casio/low.wav");
  assert_resolves ("gm_piano", 1, NAN, "soundfonts", "0000_FluidR3_GM_sf2_file.js");
  assert_resolves ("wt_digital", 6, NAN, "uzu-wavetables", "wt_digital/wt_basique.wav");

  g_assert_false (sj_sound_library_resolve (library, "sawtooth", 0, NAN, &(SjLibraryFile) { 0 }));
  g_assert_false (sj_sound_library_resolve (library, "nosuchsound", 0, NAN, &(SjLibraryFile) { 0 }));
}

/* Pitched maps take the closest note key first; ties keep the earlier
 * key; no pitch is 36. */
static void
test_resolve_piano (void)
{
  SjLibraryFile file;

  g_assert_cmpfloat (sj_sound_library_note_to_midi ("Ds1"), ==, 27);
  g_assert_cmpfloat (sj_sound_library_note_to_midi ("c3"), ==, 48);
  g_assert_cmpfloat (sj_sound_library_note_to_midi ("c"), ==, 48);
  g_assert_cmpfloat (sj_sound_library_note_to_midi ("a#-1"), ==, 10);
  g_assert_cmpfloat (sj_sound_library_note_to_midi ("Bbf4"), ==, 69);
  g_assert_true (isnan (sj_sound_library_note_to_midi ("h2")));
  g_assert_true (isnan (sj_sound_library_note_to_midi ("c3x")));

  assert_resolves ("piano", 0, 60, "piano", "C4v8.mp3");
  assert_resolves ("piano", 0, 61, "piano", "C4v8.mp3");
  assert_resolves ("piano", 0, 62, "piano", "Ds4v8.mp3");
  assert_resolves ("piano", 0, 64.5, "piano", "Ds4v8.mp3");   /* Ds4 and Fs4 both 1.5 away */
  assert_resolves ("piano", 0, NAN, "piano", "C2v8.mp3");
  assert_resolves ("piano", 5, 200, "piano", "C8v8.mp3");     /* one file per note: n wraps */

  g_assert_true (sj_sound_library_resolve (library, "piano", 0, 62, &file));
  g_assert_cmpstr (file.note, ==, "Ds4");
  g_assert_cmpuint (file.variant, ==, 0);
  g_assert_cmpstr (file.sound->name, ==, "piano");
}

/* aliasBank(): "tr909_bd" is the very sound "rolandtr909_bd". */
static void
test_aliases (void)
{
  const SjLibrarySound *canonical = sj_sound_library_lookup (library, "RolandTR909_BD");
  const SjLibrarySound *alias = sj_sound_library_lookup (library, "tr909_bd");
  const char * const *banks = sj_sound_library_get_banks (library);
  SjLibraryFile a, b;

  g_assert_nonnull (canonical);
  g_assert_nonnull (alias);
  g_assert_true (alias->alias_of == canonical);
  g_assert_true (alias->files == canonical->files);
  g_assert_cmpuint (alias->count, ==, canonical->count);
  g_assert_cmpstr (alias->tag, ==, "drum-machines");
  g_assert_cmpstr (alias->bank, ==, "tr909");
  g_assert_cmpstr (canonical->bank, ==, "rolandtr909");
  g_assert_cmpstr (sj_sound_library_get_bank (library, "tr909_sd"), ==, "tr909");

  g_assert_true (sj_sound_library_resolve (library, "tr909_bd", 1, NAN, &a));
  g_assert_true (sj_sound_library_resolve (library, "rolandtr909_bd", 1, NAN, &b));
  g_assert_cmpstr (a.path, ==, b.path);
  g_assert_true (a.sound == canonical);

  /* Every alias of the map exists for every sound of its machine. */
  g_assert_nonnull (sj_sound_library_lookup (library, "linn_bd"));
  g_assert_nonnull (sj_sound_library_lookup (library, "sp12_bd"));
  g_assert_true (g_strv_contains (banks, "rolandtr808"));
  g_assert_true (g_strv_contains (banks, "tr808"));
  g_assert_false (g_strv_contains (banks, "xylophone"));
}

static void
assert_url (const char *pack,
            const char *path,
            const char *url)
{
  g_autofree char *got = sj_sound_library_get_url (library, pack, path);

  g_assert_cmpstr (got, ==, url);
}

/* (pack, path) → the upstream URL, and → the sound and variant. */
static void
test_urls_and_files (void)
{
  const SjLibraryFile *file;

  assert_url ("uzu-drumkit", "bd/13_bd_mot4i.wav",
              "https://raw.githubusercontent.com/tidalcycles/uzu-drumkit/main/bd/13_bd_mot4i.wav");
  assert_url ("tidal-drum-machines", "AkaiLinn/akailinn-hh/Closed Hat.wav",
              "https://raw.githubusercontent.com/ritchse/tidal-drum-machines/main/machines/AkaiLinn/akailinn-hh/Closed%20Hat.wav");
  assert_url ("tidal-drum-machines", "AkaiLinn/akailinn-hh/Closed%20Hat.wav",
              "https://raw.githubusercontent.com/ritchse/tidal-drum-machines/main/machines/AkaiLinn/akailinn-hh/Closed%20Hat.wav");
  assert_url ("vcsl", "Aerophones/Edge-blown%20Aerophones/Renaissance%20Organ/4'/RenOrgan_4foot_Room_A%231_rr1.wav",
              "https://raw.githubusercontent.com/sgossner/VCSL/master/Aerophones/Edge-blown%20Aerophones/Renaissance%20Organ/4'/RenOrgan_4foot_Room_A%231_rr1.wav");
  assert_url ("soundfonts", "0000_JCLive_sf2_file.js",
              "https://felixroos.github.io/webaudiofontdata/sound/0000_JCLive_sf2_file.js");
  assert_url ("piano", "C4v8.mp3", "https://raw.githubusercontent.com/felixroos/dough-samples/main/piano/C4v8.mp3");
  /* A name with ".." inside is a file, not a parent. */
  assert_url ("tidal-drum-machines", "YamahaRM50/yamaharm50-bd/BD-011..wav",
              "https://raw.githubusercontent.com/ritchse/tidal-drum-machines/main/machines/YamahaRM50/yamaharm50-bd/BD-011..wav");

  /* Only files the maps list, of packs that exist. */
  assert_url ("uzu-drumkit", "bd/nope.wav", NULL);
  assert_url ("uzu-drumkit", "../uzu-drumkit/bd/13_bd_mot4i.wav", NULL);
  assert_url ("uzu-drumkit", "bd/%2E%2E/bd/13_bd_mot4i.wav", NULL);
  assert_url ("nope", "bd/13_bd_mot4i.wav", NULL);
  assert_url ("soundfonts", "nope.js", NULL);
  assert_url ("uzu-drumkit", "bd/%zz.wav", NULL);

  file = sj_sound_library_lookup_file (library, "uzu-drumkit", "bd/13_bd_mot4i.wav");
  g_assert_nonnull (file);
  g_assert_cmpstr (file->sound->name, ==, "bd");
  g_assert_cmpuint (file->variant, ==, 3);
  g_assert_null (file->note);

  file = sj_sound_library_lookup_file (library, "tidal-drum-machines", "RolandTR909/rolandtr909-bd/Bassdrum-02.wav");
  g_assert_nonnull (file);
  g_assert_cmpstr (file->sound->name, ==, "rolandtr909_bd");
  g_assert_cmpuint (file->variant, ==, 1);

  file = sj_sound_library_lookup_file (library, "vcsl",
                                       "Aerophones/Edge-blown Aerophones/Renaissance Organ/4'/RenOrgan_4foot_Room_A#1_rr1.wav");
  g_assert_nonnull (file);
  g_assert_cmpstr (file->local_path, ==, "Aerophones/Edge-blown Aerophones/Renaissance Organ/4'/RenOrgan_4foot_Room_A#1_rr1.wav");

  /* Files two sounds share belong to the first. */
  file = sj_sound_library_lookup_file (library, "uzu-wavetables", "wt_digital/wt_basique.wav");
  g_assert_cmpstr (file->sound->name, ==, "wt_digital");
  g_assert_cmpuint (file->variant, ==, 1);

  file = sj_sound_library_lookup_file (library, "soundfonts", "0000_JCLive_sf2_file.js");
  g_assert_cmpstr (file->sound->name, ==, "gm_piano");
  g_assert_cmpstr (file->sound->type, ==, "soundfont");
}

/* The library loads once; reading it is measured (not asserted tightly:
 * the machine is shared). */
static void
test_load_time (void)
{
  gint64 times[5];

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SjSoundLibrary) fresh = sj_sound_library_new_bundled (&error);

      g_assert_no_error (error);
      g_assert_cmpuint (sj_sound_library_get_n_sounds (fresh), ==, sj_sound_library_get_n_sounds (library));
      times[i] = sj_sound_library_get_load_time (fresh);
    }
  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    for (guint j = i + 1; j < G_N_ELEMENTS (times); j++)
      if (times[j] < times[i])
        {
          gint64 t = times[i];
          times[i] = times[j];
          times[j] = t;
        }

  g_test_message ("sound library load time: median %.2f ms, min %.2f ms, max %.2f ms (%u sounds)",
                  times[2] / 1000.0, times[0] / 1000.0, times[4] / 1000.0, sj_sound_library_get_n_sounds (library));
  g_print ("# sound library load time: median %.2f ms\n", times[2] / 1000.0);
  g_assert_cmpint (times[2], <, 500 * 1000);
  g_assert_true (sj_sound_library_get_default () == library);
}

/* Optional: against upstream's online sound map, when it is here. */
static void
test_online_map (void)
{
  g_autofree char *path = g_build_filename (SJ_UPSTREAM_REFERENCE, "sounds", "soundmap-online.json", NULL);
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(JsonObject) online = NULL;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  if (*SJ_UPSTREAM_REFERENCE == '\0' || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no upstream reference (configure with -Dupstream_reference=PATH)");
      return;
    }

  online = read_json (path);
  sj_sounds_index_load_bundled (sounds);
  g_assert_cmpuint (sj_sounds_index_get_n_sounds (sounds), ==, json_object_get_size (online));

  json_object_iter_init (&iter, online);
  while (json_object_iter_next (&iter, &name, &node))
    {
      JsonObject *theirs = json_node_get_object (node);
      const SjSound *ours = sj_sounds_index_lookup (sounds, name);

      if (ours == NULL)
        g_error ("%s is online but not bundled", name);
      g_assert_cmpstr (ours->type, ==, json_object_get_string_member (theirs, "type"));
      g_assert_cmpstr (ours->tag, ==, json_object_get_string_member_with_default (theirs, "tag", NULL));
      g_assert_cmpint (ours->prebake, ==, json_object_get_boolean_member (theirs, "prebake"));
      g_assert_cmpint (ours->count, ==, json_object_get_int_member_with_default (theirs, "count", -1));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  library = sj_sound_library_get_default ();

  g_test_add_func ("/sound-library/category-counts", test_category_counts);
  g_test_add_func ("/sound-library/every-map-sound", test_every_map_sound);
  g_test_add_func ("/sound-library/resolve-samples", test_resolve_samples);
  g_test_add_func ("/sound-library/resolve-piano", test_resolve_piano);
  g_test_add_func ("/sound-library/aliases", test_aliases);
  g_test_add_func ("/sound-library/urls-and-files", test_urls_and_files);
  g_test_add_func ("/sound-library/load-time", test_load_time);
  g_test_add_func ("/sound-library/online-map", test_online_map);

  return g_test_run ();
}
