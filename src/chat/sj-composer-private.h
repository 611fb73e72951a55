/* sj-composer-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests need: a composer of their own, outside a chat panel.
 */

#pragma once

#include "sj-composer.h"

G_BEGIN_DECLS

GtkWidget *_sj_composer_new (void);

G_END_DECLS
