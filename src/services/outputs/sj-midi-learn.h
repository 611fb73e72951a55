/* sj-midi-learn.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *sj_midi_learn_expression (const char  *code,
                                const char  *selected,
                                const char  *before,
                                guint        control,
                                guint        channel,
                                const char  *source,
                                char       **header);

G_END_DECLS
