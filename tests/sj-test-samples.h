/* sj-test-samples.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The folder sj_test_samples_make_folder() makes, under a new temporary
 * directory. */
#define SJ_TEST_SAMPLES_ROOT "Jam Samples"
/* A folder name longer than a sound name may be. */
#define SJ_TEST_SAMPLES_LONG_DIR_LENGTH  200
#define SJ_TEST_SAMPLES_LONG_FILE_LENGTH 240

GBytes *sj_test_samples_make_wav    (guint       frames);
GBytes *sj_test_samples_make_wav_seeded (const char *seed,
                                         gsize       size);
void    sj_test_samples_write       (const char *dir,
                                     const char *relative,
                                     gconstpointer data,
                                     gsize       length);
char   *sj_test_samples_make_folder (char      **tmp_dir);

G_END_DECLS
