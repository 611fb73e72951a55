/* sj-repl-user-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The user's folders of samples in the page: the hello's answer carries
 * their packs, so that a page that loads registers them before it says it
 * is ready (after the library, as app.mjs does), and a change while the
 * page runs goes to window.sjBridge.setUserSamples(), which replaces the
 * previous set (library.mjs). What the page was last given is remembered,
 * so that a change made while it loaded is sent once it is ready, and only
 * then.
 */

#include "config.h"

#include "sj-js-call.h"
#include "sj-repl-private.h"
#include "sj-web-assets.h"

#define SENT_KEY "sj-repl-user-samples-sent"

/* Returns: (transfer full): the packs as JSON, now. */
static char *
dup_packs_json (SjRepl *self)
{
  SjUserSamples *samples = sj_web_assets_get_user_samples (_sj_repl_get_assets (self));
  g_autoptr(JsonNode) packs = NULL;

  if (samples == NULL)
    return g_strdup ("[]");
  packs = sj_user_samples_dup_packs (samples);
  return json_to_string (packs, FALSE);
}

/**
 * _sj_repl_user_samples_for_hello:
 *
 * Returns: (transfer full): the packs for the page that is loading, which
 *   it registers before it is ready
 */
JsonNode *
_sj_repl_user_samples_for_hello (SjRepl *self)
{
  g_autofree char *json = dup_packs_json (self);

  g_object_set_data_full (G_OBJECT (self), SENT_KEY, g_strdup (json), g_free);
  return json_from_string (json, NULL);
}

static void
pushed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;

  answer = _sj_repl_call_finish (SJ_REPL (object), result, _sj_repl_user_samples_for_hello, &error);
  if (answer == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("The page could not register the sample folders: %s", error->message);
}

/* Sends the packs when the page has other ones than these. */
static void
push (SjRepl *self)
{
  g_autofree char *json = NULL;

  g_assert (SJ_IS_REPL (self));

  if (!sj_repl_get_ready (self))
    return;
  json = dup_packs_json (self);
  if (g_strcmp0 (json, g_object_get_data (G_OBJECT (self), SENT_KEY)) == 0)
    return;

  g_object_set_data_full (G_OBJECT (self), SENT_KEY, g_strdup (json), g_free);
  _sj_repl_call (self, "return window.sjBridge.setUserSamples(JSON.parse(packs));",
                 g_variant_new_parsed ("{'packs': <%s>}", json), SJ_REPL_DEFAULT_TIMEOUT_MS,
                 NULL, pushed_cb, NULL, _sj_repl_user_samples_for_hello);
}

/**
 * sj_repl_set_user_samples:
 * @user_samples: the user's folders of samples: the page registers them
 *   and asks strudel-jam://sounds/user/… for their files
 *
 * Set once; the page follows every change.
 */
void
sj_repl_set_user_samples (SjRepl        *self,
                          SjUserSamples *user_samples)
{
  SjWebAssets *assets;

  g_assert (SJ_IS_REPL (self));
  g_return_if_fail (SJ_IS_USER_SAMPLES (user_samples));

  assets = _sj_repl_get_assets (self);
  g_return_if_fail (sj_web_assets_get_user_samples (assets) == NULL);

  sj_web_assets_set_user_samples (assets, user_samples);
  g_signal_connect_object (user_samples, "changed", G_CALLBACK (push), self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "ready", G_CALLBACK (push), NULL);
  push (self);
}
