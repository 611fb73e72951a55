/* sj-problem-banner.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  SJ_PROBLEM_NONE,
  SJ_PROBLEM_NO_API_KEY,     /* no key stored for the provider */
  SJ_PROBLEM_NO_KEYRING,     /* no Secret Service to keep a key in */
  SJ_PROBLEM_UNAUTHORIZED,   /* the provider refused the key (401) */
  SJ_PROBLEM_OFFLINE,        /* the provider could not be reached */
  SJ_PROBLEM_RATE_LIMITED,   /* the provider asks to wait (429) */
  SJ_PROBLEM_VOICE_NO_MICROPHONE,
  SJ_PROBLEM_VOICE_BUSY,
  SJ_PROBLEM_VOICE_CAPTURE,
  SJ_PROBLEM_VOICE_MODEL_MISSING,
  SJ_PROBLEM_VOICE_NOTHING_HEARD,
  SJ_PROBLEM_VOICE_ENDPOINT_UNREACHABLE,
  SJ_PROBLEM_VOICE_ENDPOINT_REFUSED,
  SJ_PROBLEM_VOICE_ENDPOINT_FAILED,
} SjProblem;

#define SJ_TYPE_PROBLEM_BANNER (sj_problem_banner_get_type ())

G_DECLARE_FINAL_TYPE (SjProblemBanner, sj_problem_banner, SJ, PROBLEM_BANNER, GtkWidget)

void       sj_problem_banner_show        (SjProblemBanner *self,
                                          SjProblem        problem,
                                          const char      *detail);
void       sj_problem_banner_hide        (SjProblemBanner *self);

SjProblem  sj_problem_from_error         (const GError    *error);

G_END_DECLS
