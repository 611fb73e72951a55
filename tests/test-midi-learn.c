/* test-midi-learn.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Learn"'s code (sj-midi-learn.c) without JACK or a page: the
 * expression for a moved controller at the cursor, in a call's argument or
 * not, over a selected number, on channel 1 or another, and the midin()
 * line added only when the code does not read the MIDI input yet.
 */

#include "config.h"

#include "sj-midi-learn.h"

typedef struct
{
  const char *code;
  const char *selected;
  const char *before;
  guint       control;
  guint       channel;
  const char *expression;
  const char *header;
} Case;

static void
check (const Case *c)
{
  g_autofree char *header = NULL;
  g_autofree char *expression = sj_midi_learn_expression (c->code, c->selected, c->before, c->control, c->channel,
                                                          "sj-test-receiver:out", &header);

  g_test_message ("%s | %s | %s", c->code, c->selected, c->before);
  g_assert_cmpstr (expression, ==, c->expression);
  g_assert_cmpstr (header, ==, c->header);
}

static void
test_after_a_pattern (void)
{
  static const Case cases[] = {
    /* Brightness (74) is the filter, the example. */
    { "note(\"c3 e3\")", "", "note(\"c3 e3\")", 74, 1, ".lpf(cc(74).range(200, 4000))",
      "const cc = await midin('sj-test-receiver:out')\n" },
    /* Volume, pan and reverb mean what General MIDI says. */
    { "s(\"bd\")", "", "s(\"bd\")", 7, 1, ".gain(cc(7).range(0, 1))", "const cc = await midin('sj-test-receiver:out')\n" },
    { "s(\"bd\")", NULL, "s(\"bd\")", 10, 2, ".pan(cc(10, 2).range(0, 1))",
      "const cc = await midin('sj-test-receiver:out')\n" },
    { "s(\"bd\")", "", "s(\"bd\")", 91, 16, ".room(cc(91, 16).range(0, 1))",
      "const cc = await midin('sj-test-receiver:out')\n" },
    /* Any other control: the filter. */
    { "s(\"bd\")", "", "s(\"bd\")", 21, 1, ".lpf(cc(21).range(200, 4000))",
      "const cc = await midin('sj-test-receiver:out')\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check (&cases[i]);
}

static void
test_in_an_argument (void)
{
  static const Case cases[] = {
    /* The cursor in an empty argument: that parameter's range. */
    { "note(\"c3\").lpq()", "", "note(\"c3\").lpq(", 71, 1, "cc(71).range(0, 20)",
      "const cc = await midin('sj-test-receiver:out')\n" },
    /* A selected value of a known parameter: its range too. */
    { "s(\"hh*8\").hpf(800)", "800", "s(\"hh*8\").hpf(", 1, 1, "cc(1).range(20, 2000)",
      "const cc = await midin('sj-test-receiver:out')\n" },
    /* A selected number elsewhere: from 0 to twice it. */
    { "s(\"bd\").squiz(4)", "4", "s(\"bd\").squiz(", 20, 5, "cc(20, 5).range(0, 8)",
      "const cc = await midin('sj-test-receiver:out')\n" },
    { "let depth = -0.25", "-0.25", "let depth = ", 20, 1, "cc(20).range(-0.5, 0)",
      "const cc = await midin('sj-test-receiver:out')\n" },
    /* An unknown parameter, nothing selected: 0–1. */
    { "s(\"bd\").squiz()", "", "s(\"bd\").squiz( ", 20, 1, "cc(20).range(0, 1)",
      "const cc = await midin('sj-test-receiver:out')\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check (&cases[i]);
}

/* Code that reads the MIDI input already keeps its own name for it. */
static void
test_existing_midin (void)
{
  static const Case cases[] = {
    { "const knobs = await midin('nanoKONTROL')\nnote(\"c3\").lpf()", "", "note(\"c3\").lpf(", 74, 1,
      "knobs(74).range(200, 4000)", NULL },
    { "let cc=await midin(\"x\")\ns(\"bd\")", "", "s(\"bd\")", 74, 1, ".lpf(cc(74).range(200, 4000))", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check (&cases[i]);
}

/* The source is quoted safely in the new line. */
static void
test_source_quoted (void)
{
  g_autofree char *header = NULL;
  g_autofree char *expression = sj_midi_learn_expression ("", "", "", 74, 1, "it's \\ odd", &header);

  g_assert_cmpstr (expression, ==, ".lpf(cc(74).range(200, 4000))");
  g_assert_cmpstr (header, ==, "const cc = await midin('it\\'s \\\\ odd')\n");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/midi-learn/after-a-pattern", test_after_a_pattern);
  g_test_add_func ("/midi-learn/in-an-argument", test_in_an_argument);
  g_test_add_func ("/midi-learn/existing-midin", test_existing_midin);
  g_test_add_func ("/midi-learn/source-quoted", test_source_quoted);

  return g_test_run ();
}
