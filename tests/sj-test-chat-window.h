/* sj-test-chat-window.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-test-widgets.h"
#include "sj-window.h"

G_BEGIN_DECLS

SjWindow *sj_test_open_chat_window    (SjTestKeyWindow *keys,
                                       guint            timeout_s);
void      sj_test_chat_window_cleanup (void);

G_END_DECLS
