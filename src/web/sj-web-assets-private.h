/* sj-web-assets-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests ask of SjWebAssets.
 */

#pragma once

#include "sj-web-assets.h"

G_BEGIN_DECLS

const char *_sj_web_assets_get_content_security_policy (void);

G_END_DECLS
