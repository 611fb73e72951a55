/* sj-test-files.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

void sj_test_remove_tree     (const char   *path);
void sj_test_store_result_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data);
char *sj_test_list_tree      (const char   *root);

G_END_DECLS
