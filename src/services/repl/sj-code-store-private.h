/* sj-code-store-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests need: a shorter delay before the code is saved.
 */

#pragma once

#include "sj-code-store.h"

G_BEGIN_DECLS

void _sj_code_store_set_delay (SjCodeStore *self,
                               guint        delay_ms);

G_END_DECLS
