/* test-skill-archive.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the two files of test-skill-archive share: the fixture (a user
 * root beside the fixture skills), a good skill's files, and the checks
 * that an import is refused with the user root left as it was.
 */

#pragma once

#include <archive_entry.h>

#include "sj-skill-archive.h"
#include "sj-skill-registry.h"
#include "sj-test-files.h"
#include "sj-test-zip.h"

G_BEGIN_DECLS

#define FIXTURES SJ_TEST_DATA "/skills"

extern const char good_json[];
extern const char good_markdown[];

typedef struct
{
  char            *dir;
  char            *user_root;
  SjSkillRegistry *registry;
} Fixture;

typedef SjTestArchiveEntry Entry;

#define GOOD_FILES \
  { "good/skill.json", good_json, 0, 0, NULL }, \
  { "good/SKILL.md", good_markdown, 0, 0, NULL }

void   fixture_set_up       (Fixture              *fixture,
                             gconstpointer         data);
void   fixture_tear_down    (Fixture              *fixture,
                             gconstpointer         data);
GFile *save_file            (Fixture              *fixture,
                             const char           *name,
                             const void           *data,
                             gsize                 length);
void   assert_refused       (Fixture              *fixture,
                             GFile                *source,
                             SjSkillArchiveError   code,
                             const char           *says);
void   assert_zip_refused   (Fixture              *fixture,
                             const Entry          *entries,
                             guint                 n_entries,
                             SjSkillArchiveError   code,
                             const char           *says);
void   assert_built_refused (Fixture              *fixture,
                             const SjTestZipEntry *entries,
                             guint                 n_entries,
                             gsize                 cut,
                             SjSkillArchiveError   code,
                             const char           *says);

/* test-skill-archive-hostile.c */
void   add_hostile_tests    (void);

G_END_DECLS
