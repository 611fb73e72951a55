/* sj-drum-kit-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests call.
 */

#pragma once

#include "sj-drum-kit.h"

G_BEGIN_DECLS

const char * const *_sj_drum_kit_list_voices (void);
guint               _sj_drum_kit_count       (const char  *voice);

G_END_DECLS
