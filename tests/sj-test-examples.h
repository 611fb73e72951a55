/* sj-test-examples.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Checks Strudel code examples the way the knowledge notes' test always
 * has, for every test that ships examples (the notes, the skill packs):
 * each is dry-run by the real helper and must run and play, every function
 * it calls exists in the bundled runtime, every sound and bank it names is
 * registered by the app, and its first line tells the truth about the
 * network.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-reference-index.h"
#include "sj-sound-library.h"
#include "sj-sounds-index.h"

G_BEGIN_DECLS

/* What an example's first line says about the network, and must be true:
 * it plays with none at all (synthesizers, ZZFX, the built-in drum kit's
 * voices); it plays library sounds that are downloaded the first time;
 * or it loads samples of its own. */
#define SJ_TEST_OFFLINE           "// Offline"
#define SJ_TEST_DOWNLOADS_ONCE    "// Downloads once"
#define SJ_TEST_NEEDS_THE_NETWORK "// Needs the network"

typedef struct
{
  char *text;
  guint line;  /* of the opening fence, 1-based */
} SjTestBlock;

typedef struct _SjTestExamples SjTestExamples;

GPtrArray        *sj_test_blocks_of               (const char       *file,
                                                   const char       *text,
                                                   const char       *language);

SjTestExamples   *sj_test_examples_new            (void);
void              sj_test_examples_free           (SjTestExamples   *self);
SjReferenceIndex *sj_test_examples_get_reference  (SjTestExamples   *self);
SjSoundsIndex    *sj_test_examples_get_sounds     (SjTestExamples   *self);
SjSoundLibrary   *sj_test_examples_get_library    (SjTestExamples   *self);
gboolean          sj_test_examples_check          (SjTestExamples   *self,
                                                   const char       *where,
                                                   const char       *code,
                                                   GPtrArray        *problems);
void              sj_test_examples_check_names    (SjTestExamples   *self,
                                                   const char       *where,
                                                   const char       *code,
                                                   GPtrArray        *problems);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjTestExamples, sj_test_examples_free)

G_END_DECLS
