/* test-translations.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The real window in one language (LANGUAGE, with the catalogs the build
 * just compiled, through STRUDEL_JAM_LOCALEDIR): every string a user can
 * see or hear on the main view (labels, buttons, tooltips, accessible
 * names and descriptions, placeholders, the side panel's page titles and
 * every item of the header bar's menus) is compared with the English
 * msgids of po/strudel-jam.pot, and any that is still English fails, named
 * with where it was found: on the first start (the chat offers to connect a
 * model) and once a model answers (the conversation and its composer).
 * No label there may be cut off (ellipsized) by a longer translation; both
 * views are saved as build/tests/translation-<lang>-{first-start,chat}.png.
 * tests/meson.build runs it once per language in
 * po/LINGUAS; a language without its .po is skipped.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "sj-swap-result.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

/* Proper names: the same in every language, whatever a .po says. */
static const char *const same_everywhere[] = { "Strudel Jam", "Strudel", "OpenRouter", "JACK", NULL };

/* One message of a .po or .pot file. */
typedef struct
{
  char    *msgctxt;
  char    *msgid;
  char    *msgid_plural;
  char    *msgstr;        /* the first form; "" when untranslated */
  gboolean c_format;
  gboolean fuzzy;
} Entry;

static void
entry_free (Entry *entry)
{
  g_free (entry->msgctxt);
  g_free (entry->msgid);
  g_free (entry->msgid_plural);
  g_free (entry->msgstr);
  g_free (entry);
}

/* The text of a quoted PO string, its C escapes undone. */
static char *
po_unquote (const char *line)
{
  const char *start = strchr (line, '"');
  const char *end = strrchr (line, '"');
  g_autofree char *quoted = NULL;

  g_assert_true (start != NULL && end > start);
  quoted = g_strndup (start + 1, end - start - 1);

  return g_strcompress (quoted);
}

static void
append_to (char      **field,
           const char *line)
{
  g_autofree char *more = po_unquote (line);
  char *joined = g_strconcat (*field != NULL ? *field : "", more, NULL);

  g_free (*field);
  *field = joined;
}

/* The messages of @path (the header and obsolete ones left out), in order. */
static GPtrArray *
read_catalog (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  Entry *entry = NULL;
  char **field = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (*line == '\0' || g_str_has_prefix (line, "#~"))
        {
          if (*line == '\0' && entry != NULL)
            {
              if (entry->msgid != NULL && *entry->msgid != '\0')
                g_ptr_array_add (entries, entry);
              else
                entry_free (entry);
              entry = NULL;
            }
          continue;
        }
      if (entry == NULL)
        entry = g_new0 (Entry, 1);

      if (g_str_has_prefix (line, "#,"))
        {
          entry->c_format |= strstr (line, " c-format") != NULL && strstr (line, "no-c-format") == NULL;
          entry->fuzzy |= strstr (line, "fuzzy") != NULL;
        }
      else if (*line == '#')
        continue;
      else if (g_str_has_prefix (line, "msgctxt "))
        field = &entry->msgctxt;
      else if (g_str_has_prefix (line, "msgid_plural "))
        field = &entry->msgid_plural;
      else if (g_str_has_prefix (line, "msgid "))
        field = &entry->msgid;
      else if (g_str_has_prefix (line, "msgstr ") || g_str_has_prefix (line, "msgstr[0]"))
        field = &entry->msgstr;
      else if (g_str_has_prefix (line, "msgstr["))
        field = NULL;     /* the other plural forms */

      if (field != NULL && (*line == '"' || g_str_has_prefix (line, "msg")))
        append_to (field, line);
    }
  if (entry != NULL && entry->msgid != NULL && *entry->msgid != '\0')
    g_ptr_array_add (entries, entry);
  else if (entry != NULL)
    entry_free (entry);

  return entries;
}

static char *
entry_key (const char *msgctxt,
           const char *msgid)
{
  return g_strconcat (msgctxt != NULL ? msgctxt : "", "\004", msgid, NULL);
}

/* An English string as it may show: @text itself, its mnemonic underline
 * taken out, or (for a c-format string) any text in place of each
 * directive. */
typedef struct
{
  char   *english;
  char   *shown;       /* without the mnemonic underline */
  GRegex *pattern;     /* for c-format strings */
} Probe;

static void
probe_free (Probe *probe)
{
  g_free (probe->english);
  g_free (probe->shown);
  g_clear_pointer (&probe->pattern, g_regex_unref);
  g_free (probe);
}

static char *
without_mnemonic (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_' && p[1] == '_')
        g_string_append_c (out, *p++);
      else if (*p != '_')
        g_string_append_c (out, *p);
    }

  return g_string_free (out, FALSE);
}

/* The literal text of @format, the directives left out. */
static char *
format_literals (const char *format,
                 GRegex     *directive)
{
  return g_regex_replace_literal (directive, format, -1, 0, "", 0, NULL);
}

static gboolean
has_letters (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_isalpha (g_utf8_get_char (p)))
      return TRUE;

  return FALSE;
}

/* The English strings that must not show in @lang: every msgid of the
 * template, but those with nothing to translate (no letters but in
 * directives), the proper names above, and those @lang's .po deliberately
 * keeps as they are ("Code", "Chat" in German). */
static GPtrArray *
english_probes (GPtrArray  *pot,
                GHashTable *kept)
{
  g_autoptr(GRegex) directive = g_regex_new ("%(?:[0-9]+\\$)?[-+ #0']*[0-9*]*(?:\\.[0-9*]+)?(?:hh|h|ll|l|L|q|j|z|Z|t)?[diouxXeEfFgGaAcspn]",
                                             0, 0, NULL);
  GPtrArray *probes = g_ptr_array_new_with_free_func ((GDestroyNotify) probe_free);

  for (guint i = 0; i < pot->len; i++)
    {
      Entry *entry = g_ptr_array_index (pot, i);
      const char *forms[] = { entry->msgid, entry->msgid_plural };
      g_autofree char *key = entry_key (entry->msgctxt, entry->msgid);

      if (g_strv_contains (same_everywhere, entry->msgid) || g_hash_table_contains (kept, key))
        continue;

      for (guint f = 0; f < G_N_ELEMENTS (forms) && forms[f] != NULL; f++)
        {
          g_autofree char *literals = entry->c_format ? format_literals (forms[f], directive) : g_strdup (forms[f]);
          Probe *probe;

          if (!has_letters (literals))
            continue;
          probe = g_new0 (Probe, 1);
          probe->english = g_strdup (forms[f]);
          probe->shown = without_mnemonic (forms[f]);
          if (entry->c_format)
            {
              g_autoptr(GString) pattern = g_string_new ("^");
              g_autoptr(GMatchInfo) match = NULL;
              gint last = 0;

              /* Each directive stands for any text; %% for a percent sign. */
              g_regex_match (directive, forms[f], 0, &match);
              while (g_match_info_matches (match))
                {
                  gint start, end;
                  g_autofree char *before = NULL;
                  g_autofree char *escaped = NULL;

                  g_match_info_fetch_pos (match, 0, &start, &end);
                  before = g_strndup (forms[f] + last, start - last);
                  escaped = g_regex_escape_string (before, -1);
                  g_string_append (pattern, escaped);
                  g_string_append (pattern, ".+");
                  last = end;
                  g_match_info_next (match, NULL);
                }
              {
                g_autofree char *rest = g_regex_escape_string (forms[f] + last, -1);

                g_string_append (pattern, rest);
              }
              g_string_append_c (pattern, '$');
              {
                g_autofree char *percent = g_strdup (pattern->str);
                g_auto(GStrv) parts = g_strsplit (percent, "%%", -1);
                g_autofree char *joined = g_strjoinv ("%", parts);

                probe->pattern = g_regex_new (joined, G_REGEX_DOTALL, 0, NULL);
              }
            }
          g_ptr_array_add (probes, probe);
        }
    }

  return probes;
}

/* The strings found on the main view, each with where it was seen. */
typedef struct
{
  GPtrArray  *texts;
  GPtrArray  *places;
  GHashTable *once;     /* text and place, each pair listed once */
  GString    *cut;      /* the labels ellipsized, one a line */
} Seen;

static void
seen_add (Seen       *seen,
          const char *text,
          const char *place)
{
  char *pair;

  if (text == NULL || *text == '\0')
    return;
  pair = g_strconcat (text, "\n", place, NULL);
  if (!g_hash_table_add (seen->once, pair))
    return;
  g_ptr_array_add (seen->texts, g_strdup (text));
  g_ptr_array_add (seen->places, g_strdup (place));
}

/* The value of a string accessible property, or NULL. GTK 4.8 has no
 * getter; the test API returns the value it found when it differs from
 * the one it was given, and no property has this one. */
static char *
accessible_string (GtkAccessible        *accessible,
                   GtkAccessibleProperty property)
{
  if (!gtk_test_accessible_has_property (accessible, property))
    return NULL;

  return gtk_test_accessible_check_property (accessible, property, "\001 none \001");
}

static void
collect_menu (GMenuModel *model,
              const char *where,
              Seen       *seen)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *label = NULL;
      g_autoptr(GMenuLinkIter) links = NULL;
      const char *link_name;
      GMenuModel *link;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        seen_add (seen, label, where);

      links = g_menu_model_iterate_item_links (model, i);
      while (g_menu_link_iter_get_next (links, &link_name, &link))
        {
          collect_menu (link, where, seen);
          g_object_unref (link);
        }
    }
}

static void
collect_widget (GtkWidget *widget,
                Seen      *seen)
{
  g_autofree char *place = NULL;
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  g_autofree char *placeholder = NULL;

  if (!gtk_widget_get_mapped (widget))
    return;
  place = g_strdup_printf ("%s in %s", G_OBJECT_TYPE_NAME (widget),
                           gtk_widget_get_parent (widget) != NULL ? G_OBJECT_TYPE_NAME (gtk_widget_get_parent (widget)) : "nothing");

  if (GTK_IS_LABEL (widget))
    {
      seen_add (seen, gtk_label_get_label (GTK_LABEL (widget)), place);
      seen_add (seen, gtk_label_get_text (GTK_LABEL (widget)), place);
      /* A longer translation must fit where the English did. */
      if (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (widget))))
        g_string_append_printf (seen->cut, "  “%s” (%s)\n", gtk_label_get_text (GTK_LABEL (widget)), place);
    }
  if (GTK_IS_BUTTON (widget))
    seen_add (seen, gtk_button_get_label (GTK_BUTTON (widget)), place);
  if (GTK_IS_MENU_BUTTON (widget))
    {
      GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget));
      g_autofree char *where = g_strdup_printf ("the menu of %s", place);

      seen_add (seen, gtk_menu_button_get_label (GTK_MENU_BUTTON (widget)), place);
      if (menu != NULL)
        collect_menu (menu, where, seen);
    }
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (widget), "placeholder-text") != NULL)
    {
      g_object_get (widget, "placeholder-text", &placeholder, NULL);
      seen_add (seen, placeholder, place);
    }
  if (gtk_widget_get_has_tooltip (widget))
    {
      g_autofree char *where = g_strdup_printf ("the tooltip of %s", place);

      seen_add (seen, gtk_widget_get_tooltip_text (widget), where);
    }

  name = accessible_string (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL);
  description = accessible_string (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  if (name != NULL)
    {
      g_autofree char *where = g_strdup_printf ("the accessible name of %s", place);

      seen_add (seen, name, where);
    }
  if (description != NULL)
    {
      g_autofree char *where = g_strdup_printf ("the accessible description of %s", place);

      seen_add (seen, description, where);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_widget (child, seen);
}

/* Every string of the window as it shows now, with its side panel's page
 * titles (shown in the switcher) and the items of the header bar's menus. */
static void
collect_view (SjWindow   *window,
              const char *view,
              Seen       *seen)
{
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (window->panel_stack);
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *name = g_strdup_printf ("translation-%s-%s.png", g_getenv ("LANGUAGE"), view);
  g_autofree char *path = NULL;

  sj_test_wait_widget_frames (GTK_WIDGET (window), 2, SJ_TEST_WAIT_TIMEOUT_S);
  texture = sj_test_render_widget (GTK_WIDGET (window));
  path = sj_test_save_png (texture, name);
  g_test_message ("the %s view: %s", view, path);

  /* A longer translation can make the side panel need more than its
   * default width (the switcher's buttons are as wide as its widest label),
   * taking room from the code: said, not failed, as nothing is cut off. */
  {
    g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
    int width = g_settings_get_int (settings, "panel-width");
    int minimum;

    gtk_widget_measure (window->panel, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
    g_test_message ("the side panel needs %d px in the %s view, its default width is %d px%s", minimum, view, width,
                    minimum > width ? ": it is wider than by default in this language" : "");
  }
  collect_widget (GTK_WIDGET (window), seen);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);

      seen_add (seen, adw_view_stack_page_get_title (page), "a side panel page's title");
    }
  seen_add (seen, gtk_window_get_title (GTK_WINDOW (window)), "the window's title");
}

static gboolean
probe_matches (Probe      *probe,
               const char *text)
{
  if (probe->pattern != NULL)
    return g_regex_match (probe->pattern, text, 0, NULL);

  return g_str_equal (text, probe->english) || g_str_equal (text, probe->shown);
}

static void
test_main_view (gconstpointer data)
{
  const char *lang = data;
  const char *podir = g_getenv ("SJ_TEST_PO_DIR");
  const char *localedir = g_getenv ("STRUDEL_JAM_LOCALEDIR");
  g_autofree char *po_path = NULL;
  g_autofree char *pot_path = NULL;
  g_autofree char *mo_path = NULL;
  g_autoptr(GPtrArray) pot = NULL;
  g_autoptr(GPtrArray) po = NULL;
  g_autoptr(GPtrArray) probes = NULL;
  g_autoptr(GHashTable) kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) translations = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) english = g_string_new (NULL);
  Seen seen = { g_ptr_array_new_with_free_func (g_free), g_ptr_array_new_with_free_func (g_free),
                g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), g_string_new (NULL) };
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autoslist(GUri) uris = NULL;
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  SjWindow *window;
  guint translated_seen = 0;
  guint english_seen = 0;

  g_assert_nonnull (podir);
  g_assert_nonnull (localedir);
  po_path = g_strdup_printf ("%s/%s.po", podir, lang);
  pot_path = g_strdup_printf ("%s/%s.pot", podir, GETTEXT_PACKAGE);
  mo_path = g_strdup_printf ("%s/%s/LC_MESSAGES/%s.mo", localedir, lang, GETTEXT_PACKAGE);
  if (!g_file_test (po_path, G_FILE_TEST_EXISTS))
    {
      g_test_skip_printf ("po/%s.po does not exist yet", lang);
      return;
    }
  g_assert_true (g_file_test (mo_path, G_FILE_TEST_EXISTS));

  /* The catalog is the one in use: a string the .po translates shows
   * translated through gettext. */
  pot = read_catalog (pot_path);
  po = read_catalog (po_path);
  for (guint i = 0; i < po->len; i++)
    {
      Entry *entry = g_ptr_array_index (po, i);

      if (entry->fuzzy || entry->msgstr == NULL || *entry->msgstr == '\0')
        continue;
      if (g_str_equal (entry->msgstr, entry->msgid))
        g_hash_table_add (kept, entry_key (entry->msgctxt, entry->msgid));
      g_hash_table_add (translations, entry->msgstr);
    }
  g_assert_cmpstr (g_getenv ("LANGUAGE"), ==, lang);
  g_assert_cmpstr (_("Main Menu"), !=, "Main Menu");

  probes = english_probes (pot, kept);
  g_test_message ("%u English strings to look for, %u kept as they are in %s",
                  probes->len, g_hash_table_size (kept), lang);

  /* The main view: the window on its first start, the side panel on its
   * first page (the chat), the header bar with its menus. */
  /* The main view as a newcomer first meets it: the window on its first
   * start, the side panel on its first page, the chat, which offers to
   * connect a model (this machine has no keyring). */
  window = sj_test_open_window ();
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "chat");
  collect_view (window, "first-start", &seen);

  /* ... and once a model answers: the conversation and its composer. */
  server = soup_server_new (NULL, NULL);
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1", g_uri_get_port (uris->data));
  settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", url);
  g_settings_set_string (settings, "model", "qwen3:8b");
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to take the model server");
  collect_view (window, "chat", &seen);

  g_test_message ("%u strings on the main view", seen.texts->len);
  g_assert_cmpuint (seen.texts->len, >, 30);

  for (guint i = 0; i < seen.texts->len; i++)
    {
      const char *text = g_ptr_array_index (seen.texts, i);

      g_test_message ("seen: “%s” (%s)", text, (char *) g_ptr_array_index (seen.places, i));
      if (g_hash_table_contains (translations, text))
        translated_seen++;
      for (guint p = 0; p < probes->len; p++)
        {
          Probe *probe = g_ptr_array_index (probes, p);

          if (probe_matches (probe, text))
            {
              g_string_append_printf (english, "  “%s” (%s), the English msgid “%s”\n",
                                      text, (char *) g_ptr_array_index (seen.places, i), probe->english);
              english_seen++;
              break;
            }
        }
    }
  g_test_message ("%u of them are translations from po/%s.po", translated_seen, lang);

  if (english_seen > 0)
    g_test_fail_printf ("%u strings on the main view are still in English in %s: translate them in po/%s.po "
                        "(after `meson compile -C build strudel-jam-update-po`), or wrap them in _():\n%s",
                        english_seen, lang, lang, english->str);
  if (seen.cut->len > 0)
    g_test_fail_printf ("labels on the main view are cut off in %s: shorten their translations in po/%s.po:\n%s",
                        lang, lang, seen.cut->str);
  /* The walk saw the translation at work, not only strings without one. */
  g_assert_cmpuint (translated_seen, >=, 10);

  /* The page's own words: a pending change's banner in the editor
   * counts down in the language too (the hello's strings, swap.mjs). */
  {
    SjRepl *repl = _sj_window_get_repl (window);
    g_autoptr(JsonObject) outcome = sj_test_evaluate (repl, "setcps(0.25)\ns(\"bd\")");
    g_autoptr(SjSwapResult) swap = NULL;
    g_autoptr(JsonNode) banner = NULL;
    g_autoptr(JsonNode) cancel = NULL;
    g_autofree char *lands = NULL;
    g_autofree char *button = g_strconcat (_("Cancel"), "|", _("Cancel the pending change"), NULL);
    const char *text;

    g_assert_true (json_object_get_boolean_member (outcome, "ok"));
    swap = sj_test_schedule_swap (repl, "setcps(0.25)\ns(\"hh*2\")", "bars", 2, 4, FALSE);
    g_assert_cmpint (swap->status, ==, SJ_SWAP_SCHEDULED);
    banner = sj_test_call_js (repl, "return document.getElementById('sj-swap-countdown')?.textContent ?? '';");
    cancel = sj_test_call_js (repl, "const b = document.getElementById('sj-swap-cancel');"
                                    "return b ? b.textContent + '|' + b.getAttribute('aria-label') : '';");
    text = json_node_get_string (banner);
    g_test_message ("the editor's banner: “%s”, its button “%s”", text, json_node_get_string (cancel));
    /* "Lands in %d beats (cycle %g)" up to its first directive. */
    lands = g_strndup (g_dngettext (GETTEXT_PACKAGE, "Lands in %d beat (cycle %g)", "Lands in %d beats (cycle %g)", 8),
                       strcspn (g_dngettext (GETTEXT_PACKAGE, "Lands in %d beat (cycle %g)",
                                             "Lands in %d beats (cycle %g)", 8), "%"));
    g_assert_true (g_str_has_prefix (text, lands));
    g_assert_false (g_str_has_prefix (text, "Lands in"));
    g_assert_cmpstr (json_node_get_string (cancel), ==, button);
  }

  g_ptr_array_unref (seen.texts);
  g_ptr_array_unref (seen.places);
  g_hash_table_unref (seen.once);
  g_string_free (seen.cut, TRUE);
  sj_test_close_window (window);
  soup_server_disconnect (server);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autofree char *path = NULL;
  const char *lang = g_getenv ("LANGUAGE");
  int ret;

  /* The accessible names are kept where the test can read them. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  /* As the app's main() does, before GTK starts. */
  sj_application_setup_i18n ();
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_assert_true (lang != NULL && *lang != '\0');
  path = g_strdup_printf ("/translations/%s/main-view", lang);
  g_test_add_data_func (path, lang, test_main_view);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
