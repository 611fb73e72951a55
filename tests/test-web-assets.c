/* test-web-assets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The strudel-jam:// scheme serves exactly the bundled page and nothing else.
 */

#include "config.h"

#include "sj-web-assets-private.h"
#include "sj-web-resources.h"

#define PREFIX "/io/github/strudeljam/StrudelJam/web"

static void
assert_served (SjWebAssets *assets,
               const char  *uri,
               const char  *expected_type,
               const char  *expected_text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  const char *content_type = NULL;

  bytes = sj_web_assets_lookup (assets, uri, &content_type, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_cmpstr (content_type, ==, expected_type);
  text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_assert_nonnull (strstr (text, expected_text));
}

static void
assert_refused (SjWebAssets *assets,
                const char  *uri)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const char *content_type = NULL;

  bytes = sj_web_assets_lookup (assets, uri, &content_type, &error);
  g_assert_null (bytes);
  g_assert_nonnull (error);
}

static void
test_serves_bundle (void)
{
  g_autoptr(SjWebAssets) assets = sj_web_assets_new (PREFIX);

  assert_served (assets, SJ_WEB_PAGE_URI, "text/html", "Content-Security-Policy");
  assert_served (assets, "strudel-jam://app/", "text/html", "<script src=\"app.js\">");
  /* The bundle really contains Strudel's REPL editor and our bridge. */
  assert_served (assets, "strudel-jam://app/app.js", "text/javascript", "sjBridge");
  assert_served (assets, "strudel-jam://app/app.js", "text/javascript", "strudel.log");
  assert_served (assets, "strudel-jam://app/app.css", "text/css", "#editor");
  assert_served (assets, "strudel-jam://app/worklets.json", "application/json", "worklets/");
  assert_served (assets, "strudel-jam://app/versions.json", "application/json", "\"@strudel/core\": \"1.2.6\"");
  assert_served (assets, "strudel-jam://app/versions.json", "application/json", "\"@strudel/codemirror\": \"1.3.0\"");
  assert_served (assets, "strudel-jam://app/versions.json", "application/json", "\"@strudel/webaudio\": \"1.3.0\"");
}

static void
test_page_csp_allows_only_our_scheme (void)
{
  g_autoptr(GBytes) bytes = g_resources_lookup_data (PREFIX "/index.html", 0, NULL);
  g_autofree char *html = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  const char *script_src = strstr (html, "script-src");
  g_autofree char *directive = NULL;

  g_assert_nonnull (script_src);
  directive = g_strndup (script_src, strcspn (script_src, ";"));
  g_assert_cmpstr (directive, ==, "script-src 'self' strudel-jam: 'unsafe-eval'");
  g_assert_nonnull (strstr (html, "default-src 'none'"));

  /* Nothing is fetched from the network, not even the sample maps the
   * code's own samples('github:…') loads: they come through our scheme. */
  g_assert_nonnull (strstr (html, "connect-src 'self' strudel-jam:;"));
  g_assert_nonnull (strstr (html, "media-src 'self' strudel-jam: blob: data:;"));
  g_assert_null (strstr (html, "https:"));
  g_assert_null (strstr (html, "http:"));
}

/* Every response carries the page's policy too. */
static void
test_response_csp_is_the_page_csp (void)
{
  g_autoptr(GBytes) bytes = g_resources_lookup_data (PREFIX "/index.html", 0, NULL);
  g_autofree char *html = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  const char *start = strstr (html, "content=\"default-src");
  g_autofree char *policy = NULL;

  g_assert_nonnull (start);
  start += strlen ("content=\"");
  policy = g_strndup (start, strcspn (start, "\""));
  g_assert_cmpstr (policy, ==, _sj_web_assets_get_content_security_policy ());
}

static void
test_refuses_everything_else (void)
{
  g_autoptr(SjWebAssets) assets = sj_web_assets_new (PREFIX);

  assert_refused (assets, "strudel-jam://app/missing.js");
  assert_refused (assets, "strudel-jam://other/index.html");
  assert_refused (assets, "strudel-jam://app/../StrudelJam/ui/sj-window.ui");
  assert_refused (assets, "strudel-jam://app/%2e%2e/%2e%2e/etc/passwd");
  assert_refused (assets, "https://strudel.cc/");
  assert_refused (assets, "file:///etc/passwd");
  assert_refused (assets, "not a uri");

  g_assert_true (sj_web_assets_is_own_uri ("strudel-jam://app/app.js"));
  g_assert_false (sj_web_assets_is_own_uri ("https://example.com/strudel-jam://"));
  g_assert_false (sj_web_assets_is_own_uri (NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  sj_web_register_resource ();

  g_test_add_func ("/web-assets/serves-bundle", test_serves_bundle);
  g_test_add_func ("/web-assets/csp", test_page_csp_allows_only_our_scheme);
  g_test_add_func ("/web-assets/response-csp", test_response_csp_is_the_page_csp);
  g_test_add_func ("/web-assets/refuses-everything-else", test_refuses_everything_else);

  return g_test_run ();
}
