/* sj-composer-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests need: a composer of their own, outside a chat panel,
 * and its buttons (Send or Stop, and the microphone).
 */

#pragma once

#include "sj-composer.h"

G_BEGIN_DECLS

GtkWidget *_sj_composer_new            (void);
GtkButton *_sj_composer_get_button     (SjComposer *self);
GtkButton *_sj_composer_get_mic_button (SjComposer *self);

G_END_DECLS
