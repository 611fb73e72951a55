/* sj-test-files.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void sj_test_remove_tree (const char *path);

G_END_DECLS
