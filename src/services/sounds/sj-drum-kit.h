/* sj-drum-kit.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Where the kit's files are in the resource: kit.json and VOICE/N.wav. */
#define SJ_DRUM_KIT_RESOURCE_PATH "/io/github/strudeljam/StrudelJam/kit/"

void                sj_drum_kit_register    (void);
GBytes             *sj_drum_kit_lookup      (const char  *voice,
                                             int          variant,
                                             GError     **error);

G_END_DECLS
