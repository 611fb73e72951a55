/* sj-console-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in the Console page: the lines it holds.
 */

#pragma once

#include "sj-console-page.h"

G_BEGIN_DECLS

GListModel *_sj_console_page_get_model (SjConsolePage *self);

G_END_DECLS
