/* sj-midi-learn.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Learn": the code that maps a controller just moved (its control number
 * and channel) to a pattern parameter, for the editor's cursor. The
 * controller's value is read as the app's midin() offers it
 * (data/web/src/outputs.mjs, as @strudel/midi's): `const cc = await
 * midin('device')` gives cc(number, channel?), a pattern of the control's
 * latest value from 0 to 1, which .range(lo, hi) scales.
 *
 * Where it goes:
 *  - the cursor (or the selection) is the argument of a call, as in
 *    `.lpf(|)` or `.lpf(800)` with 800 selected: the argument becomes
 *    cc(74).range(lo, hi), the range the parameter's (a small table of
 *    Strudel's usual ones), or from 0 to twice a selected number, or 0–1;
 *  - anywhere else: a call is added, the parameter the controller's
 *    number usually means in General MIDI (7 volume: gain, 10 pan, 71
 *    resonance: lpq, 74 brightness: lpf, 91 reverb: room, …), lpf for the
 *    rest: .lpf(cc(74).range(200, 4000)).
 *
 * The channel is written when it is not 1: cc(74) follows control 74 on
 * any channel, cc(74, 3) on channel 3 only. When the code does not read
 * the MIDI input yet, a first line `const cc = await midin('…')` is
 * given too; when it does, its own name for the function is used.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sj-midi-learn.h"

typedef struct
{
  const char *name;
  double      lo;
  double      hi;
} Range;

/* Strudel's parameters a knob usually turns, with a range that sounds. */
static const Range ranges[] = {
  { "lpf", 200, 4000 }, { "cutoff", 200, 4000 }, { "ctf", 200, 4000 }, { "lp", 200, 4000 },
  { "hpf", 20, 2000 }, { "hcutoff", 20, 2000 }, { "hp", 20, 2000 },
  { "bpf", 200, 4000 }, { "bandf", 200, 4000 }, { "bp", 200, 4000 },
  { "lpq", 0, 20 }, { "resonance", 0, 20 }, { "hpq", 0, 20 }, { "bpq", 0, 20 },
  { "gain", 0, 1 }, { "velocity", 0, 1 }, { "postgain", 0, 2 },
  { "room", 0, 1 }, { "size", 0, 1 }, { "roomsize", 0, 1 },
  { "delay", 0, 1 }, { "delayfeedback", 0, 0.9 }, { "delaytime", 0, 1 },
  { "pan", 0, 1 }, { "shape", 0, 1 }, { "distort", 0, 1 },
  { "crush", 1, 16 }, { "coarse", 1, 32 }, { "speed", 0.5, 2 },
  { "attack", 0, 1 }, { "decay", 0, 1 }, { "sustain", 0, 1 }, { "release", 0, 1 },
  { "cps", 0.25, 1 },
};

/* What General MIDI's controller numbers usually mean, in Strudel. */
static const struct
{
  guint       control;
  const char *parameter;
} usual[] = {
  { 7, "gain" }, { 10, "pan" }, { 11, "gain" }, { 71, "lpq" }, { 72, "release" }, { 73, "attack" },
  { 74, "lpf" }, { 91, "room" }, { 94, "delay" },
};

static const Range *
find_range (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (ranges); i++)
    if (strcmp (ranges[i].name, name) == 0)
      return &ranges[i];
  return NULL;
}

static char *
format_number (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", value));
}

/* The name of the call whose argument list @before ends in, or NULL. */
static char *
call_before (const char *before)
{
  g_autoptr(GRegex) regex = g_regex_new ("\\.([A-Za-z_$][A-Za-z0-9_$]*)\\(\\s*$", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  if (before == NULL || !g_regex_match (regex, before, 0, &match))
    return NULL;
  return g_match_info_fetch (match, 1);
}

/* The code's own name for midin()'s function, as in `const cc = await
 * midin(…)`, or NULL. */
static char *
midin_name (const char *code)
{
  g_autoptr(GRegex) regex = g_regex_new ("\\b(?:const|let|var)\\s+([A-Za-z_$][A-Za-z0-9_$]*)\\s*=\\s*"
                                         "await\\s+midin\\s*\\(", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  if (code == NULL || !g_regex_match (regex, code, 0, &match))
    return NULL;
  return g_match_info_fetch (match, 1);
}

static char *
quote (const char *text)
{
  g_autoptr(GString) out = g_string_new ("'");

  for (const char *p = text != NULL ? text : ""; *p != '\0'; p++)
    {
      if (*p == '\'' || *p == '\\')
        g_string_append_c (out, '\\');
      if (*p == '\n' || *p == '\r')
        continue;
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '\'');

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/**
 * sj_midi_learn_expression:
 * @code: the editor's code
 * @selected: (nullable): the selected text
 * @before: (nullable): the text just before the cursor or selection (its
 *   line will do)
 * @control: the control number moved (0–127)
 * @channel: its channel (1–16)
 * @source: (nullable): what midin() should listen to, for a new first line
 * @header: (out) (transfer full) (nullable): a line to put before the
 *   code, or %NULL when the code reads the MIDI input already
 *
 * Returns: (transfer full): what replaces the selection (or goes at the
 *   cursor)
 */
char *
sj_midi_learn_expression (const char  *code,
                          const char  *selected,
                          const char  *before,
                          guint        control,
                          guint        channel,
                          const char  *source,
                          char       **header)
{
  g_autofree char *function = midin_name (code);
  g_autofree char *call = call_before (before);
  g_autofree char *channel_text = NULL;
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;
  g_autofree char *reading = NULL;
  g_autofree char *stripped = g_strstrip (g_strdup (selected != NULL ? selected : ""));
  const char *parameter = NULL;
  const Range *range;
  double number = 0;
  char *end = NULL;
  gboolean is_number;

  g_return_val_if_fail (control < 128 && channel >= 1 && channel <= 16, NULL);
  g_return_val_if_fail (header != NULL, NULL);

  *header = NULL;
  if (function == NULL)
    {
      g_autofree char *quoted = quote (source);

      function = g_strdup ("cc");
      *header = g_strdup_printf ("const cc = await midin(%s)\n", quoted);
    }

  number = g_ascii_strtod (stripped, &end);
  is_number = *stripped != '\0' && end != NULL && *end == '\0';

  /* In a call's argument: that parameter; anywhere else, a new call. */
  if (call == NULL && !is_number)
    {
      parameter = "lpf";
      for (guint i = 0; i < G_N_ELEMENTS (usual); i++)
        if (usual[i].control == control)
          parameter = usual[i].parameter;
    }
  range = find_range (call != NULL ? call : parameter);

  if (range != NULL)
    {
      lo = format_number (range->lo);
      hi = format_number (range->hi);
    }
  else if (is_number && number != 0)
    {
      lo = format_number (MIN (0, 2 * number));
      hi = format_number (MAX (0, 2 * number));
    }
  else
    {
      lo = g_strdup ("0");
      hi = g_strdup ("1");
    }

  channel_text = channel != 1 ? g_strdup_printf (", %u", channel) : g_strdup ("");
  reading = g_strdup_printf ("%s(%u%s).range(%s, %s)", function, control, channel_text, lo, hi);
  if (parameter != NULL)
    return g_strdup_printf (".%s(%s)", parameter, reading);
  return g_steal_pointer (&reading);
}
