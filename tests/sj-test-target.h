/* sj-test-target.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-live-target.h"

G_BEGIN_DECLS

#define SJ_TYPE_TEST_TARGET (sj_test_target_get_type ())

G_DECLARE_FINAL_TYPE (SjTestTarget, sj_test_target, SJ, TEST_TARGET, GObject)

SjTestTarget *sj_test_target_new          (const char   *code);
const char   *sj_test_target_get_code     (SjTestTarget *self);
void          sj_test_target_set_code     (SjTestTarget *self,
                                           const char   *code);
guint         sj_test_target_get_n_swaps  (SjTestTarget *self);
void          sj_test_target_hold_fetches (SjTestTarget *self,
                                           guint         after);
guint         sj_test_target_get_n_held   (SjTestTarget *self);
void          sj_test_target_fail_swaps   (SjTestTarget *self,
                                           const char   *page_error,
                                           const char   *evaluation_error);
void          sj_test_target_fail_sound   (SjTestTarget *self,
                                           const char   *sound,
                                           const char   *reason);

G_END_DECLS
