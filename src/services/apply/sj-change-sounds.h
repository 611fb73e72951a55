/* sj-change-sounds.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-change-result.h"
#include "sj-dry-run-result.h"
#include "sj-knowledge.h"
#include "sj-sound-cache.h"
#include "sj-swap-result.h"

G_BEGIN_DECLS

void sj_change_sounds_classify  (SjChangeSounds       *sounds,
                                 const SjDryRunResult *report,
                                 SjSoundCache         *cache,
                                 SjKnowledge          *knowledge,
                                 GPtrArray            *unavailable);
void sj_change_sounds_read_page (SjChangeSounds     *sounds,
                                 const SjSwapResult *swap);
char *sj_change_sounds_read_refusal (const SjSwapResult *swap,
                                     SjSoundCache       *cache,
                                     SjKnowledge        *knowledge,
                                     GPtrArray          *unavailable);

G_END_DECLS
