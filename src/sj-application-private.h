/* sj-application-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests call.
 */

#pragma once

#include "sj-application.h"

G_BEGIN_DECLS

SjSoundsIndex *_sj_application_get_sounds (SjApplication *self);

G_END_DECLS
