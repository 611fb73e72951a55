/* sj-repl-view.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The web view SjRepl shows the Strudel page in, and how it is kept: one
 * page loaded from memory, nothing stored across runs, no navigation away
 * from it (web links open in the user's browser), no permissions granted,
 * and a keyboard that never gets trapped inside WebKit's internals. The
 * page's messages and the commands to it are SjRepl's (sj-repl.c).
 */

#include "config.h"

#include "sj-platform.h"
#include "sj-repl-private.h"

static void
open_in_browser (const char *uri)
{
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri (uri, NULL, &error))
    g_message ("Could not open %s: %s", uri, error->message);
}

static gboolean
decide_policy_cb (WebKitWebView            *view,
                  WebKitPolicyDecision     *decision,
                  WebKitPolicyDecisionType  type,
                  gpointer                  user_data)
{
  WebKitNavigationAction *action;
  const char *uri;

  if (type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE)
    return FALSE;

  action = webkit_navigation_policy_decision_get_navigation_action (WEBKIT_NAVIGATION_POLICY_DECISION (decision));
  uri = webkit_uri_request_get_uri (webkit_navigation_action_get_request (action));

  /* Only our own page may be shown; a click on a web link goes to the
   * user's browser instead of replacing the REPL. */
  if (type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION && g_strcmp0 (uri, SJ_WEB_PAGE_URI) == 0)
    {
      webkit_policy_decision_use (decision);
      return TRUE;
    }

  if (webkit_navigation_action_is_user_gesture (action) &&
      (g_str_has_prefix (uri, "https://") || g_str_has_prefix (uri, "http://")))
    open_in_browser (uri);
  else
    g_message ("Refusing navigation to %s", uri);

  webkit_policy_decision_ignore (decision);
  g_signal_emit_by_name (user_data, "navigation-refused", uri);
  return TRUE;
}

static gboolean
load_failed_cb (WebKitWebView   *view,
                WebKitLoadEvent  event,
                const char      *uri,
                GError          *error,
                gpointer         user_data)
{
  g_message ("Loading %s failed: %s", uri, error->message);
  return FALSE;
}

static gboolean
permission_request_cb (WebKitWebView           *view,
                       WebKitPermissionRequest *request,
                       gpointer                 user_data)
{
  /* Microphone, camera, geolocation and the like are never needed. */
  webkit_permission_request_deny (request);
  return TRUE;
}

static WebKitUserScript *
create_bridge_script (void)
{
  g_autoptr(GBytes) bytes = NULL;

  bytes = g_resources_lookup_data (SJ_REPL_WEB_RESOURCE_PREFIX "/bridge-world.js", 0, NULL);
  g_assert (bytes != NULL);

  return webkit_user_script_new_for_world (g_bytes_get_data (bytes, NULL),
                                           WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                                           WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
                                           SJ_REPL_BRIDGE_WORLD, NULL, NULL);
}

/* WebKitGTK translates key presses into editing commands by forwarding them
 * to a GtkTextView of its own (its KeyBindingTranslator), which it makes a
 * child of the web view: 0 × 0, never drawn, but focusable. Moving on from
 * the view, GTK's focus chain goes into that hidden child, where every
 * further Tab stays (it is an editable text view): the keyboard is
 * trapped. Forwarded key events reach a widget that cannot take the focus
 * just the same, so the child is made unfocusable: Tab goes on from the
 * editor to the side panel, Shift+Tab back to the header bar. */
static void
keep_focus_out_of_internals (WebKitWebView *view)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_TEXT_VIEW (child))
      gtk_widget_set_focusable (child, FALSE);
}

/* Tab and Shift+Tab leave the editor in one step, to the side panel and to
 * the header bar (the editor indents by itself, and with Tab it would be
 * a trap: the Strudel website's editor does not indent with Tab either).
 * Left to WebKit, the page moves the keyboard out of the view and then
 * hands the same key back to GTK, which moves it once more: the Chat's
 * button would be skipped. Taken here, before WebKit sees it, the key is
 * GTK's alone. */
static gboolean
view_key_pressed_cb (GtkEventControllerKey *controller,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     gpointer               user_data)
{
  GtkWidget *view = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GdkModifierType modifiers = state & gtk_accelerator_get_default_mod_mask ();
  GtkRoot *root = gtk_widget_get_root (view);

  if (keyval != GDK_KEY_Tab && keyval != GDK_KEY_ISO_Left_Tab && keyval != GDK_KEY_KP_Tab)
    return FALSE;
  /* Only the page's own: a dialog the page shows (a child of the view)
   * keeps its Tab. */
  if ((modifiers & ~GDK_SHIFT_MASK) != 0 || root == NULL || gtk_root_get_focus (root) != view)
    return FALSE;

  return gtk_widget_child_focus (GTK_WIDGET (root),
                                 modifiers & GDK_SHIFT_MASK ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD);
}

/**
 * _sj_repl_view_new:
 * @repl: the SjRepl the view belongs to (it emits #SjRepl::navigation-refused)
 * @assets: the page's files, served from memory
 * @content_manager: with the bridge's script message handler registered
 *
 * Returns: (transfer full): the web view, set up for the Strudel page
 */
WebKitWebView *
_sj_repl_view_new (SjRepl                   *repl,
                   SjWebAssets              *assets,
                   WebKitUserContentManager *content_manager)
{
  GtkEventController *keys;
  WebKitWebView *view;
  g_autoptr(WebKitWebContext) context = NULL;
  g_autoptr(WebKitNetworkSession) session = NULL;
  g_autoptr(WebKitWebsitePolicies) policies = NULL;
  g_autoptr(WebKitSettings) settings = NULL;
  g_autoptr(WebKitUserScript) script = NULL;
  gboolean devtools = g_getenv ("STRUDEL_JAM_DEVTOOLS") != NULL;

  g_assert (SJ_IS_REPL (repl));

  context = webkit_web_context_new ();
  /* One page, loaded from memory: WebKit's page and memory caches would only
   * hold copies of what the GResource already has. */
  webkit_web_context_set_cache_model (context, WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
  sj_web_assets_register (assets, context);

  /* Nothing the page stores is worth keeping across runs. */
  session = webkit_network_session_new_ephemeral ();

  script = create_bridge_script ();
  webkit_user_content_manager_add_script (content_manager, script);

  /* Without autoplay the AudioContext stays suspended until a click in the
   * page, and play from the header bar would be silent. */
  policies = webkit_website_policies_new_with_policies ("autoplay", WEBKIT_AUTOPLAY_ALLOW, NULL);

  /* STRUDEL_JAM_DEVTOOLS=1 enables the inspector and echoes the page's
   * console to stdout, for debugging the page itself. */
  /* Without a GPU, WebKit's accelerated compositing runs on Mesa's software
   * rasterizer. Drawing without it measured lighter in bench/startup: PSS
   * 270 MiB instead of 321 MiB at ready, 375 instead of 456 MiB after 10 s
   * of the demo, and 73 % instead of 89 % of a core while playing. */
  settings = webkit_settings_new_with_settings ("hardware-acceleration-policy",
                                                sj_platform_has_gpu ()
                                                  ? WEBKIT_HARDWARE_ACCELERATION_POLICY_ALWAYS
                                                  : WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER,
                                                "enable-developer-extras", devtools,
                                                "enable-write-console-messages-to-stdout", devtools,
                                                "enable-back-forward-navigation-gestures", FALSE,
                                                "javascript-can-open-windows-automatically", FALSE,
                                                "enable-html5-database", FALSE,
                                                "enable-page-cache", FALSE,
                                                NULL);

  view = g_object_ref_sink (g_object_new (WEBKIT_TYPE_WEB_VIEW,
                                                "web-context", context,
                                                "network-session", session,
                                                "user-content-manager", content_manager,
                                                "website-policies", policies,
                                                "settings", settings,
                                                "hexpand", TRUE,
                                                "vexpand", TRUE,
                                                NULL));


  keep_focus_out_of_internals (view);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (view_key_pressed_cb), NULL);
  gtk_widget_add_controller (GTK_WIDGET (view), keys);

  g_signal_connect_object (view, "decide-policy", G_CALLBACK (decide_policy_cb), repl, 0);
  g_signal_connect (view, "load-failed", G_CALLBACK (load_failed_cb), NULL);
  g_signal_connect (view, "permission-request", G_CALLBACK (permission_request_cb), NULL);

  return view;
}
