/* sj-sounds-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in the Sounds page: the knowledge it searches and
 * the results of its search.
 */

#pragma once

#include "sj-sounds-page.h"

G_BEGIN_DECLS

SjKnowledge *_sj_sounds_page_get_knowledge (SjSoundsPage *self);
GListModel  *_sj_sounds_page_get_results   (SjSoundsPage *self);

G_END_DECLS
