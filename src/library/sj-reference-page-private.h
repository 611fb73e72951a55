/* sj-reference-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in the Reference page: the results of its search.
 */

#pragma once

#include "sj-reference-page.h"

G_BEGIN_DECLS

GListModel *_sj_reference_page_get_results (SjReferencePage *self);

G_END_DECLS
