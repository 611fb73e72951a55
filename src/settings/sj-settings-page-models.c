/* sj-settings-page-models.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The model menu of SjSettingsPage: the models the provider offers, asked
 * of the provider itself with the stored key when the menu is first opened
 * for an endpoint or on Refresh (through SjModelCatalog, as the Chat's
 * first-start status page does), searched as one types. A fetch that fails
 * is reported in a row of the page as well as in the menu, since an empty
 * menu alone would not say why.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-model-catalog.h"
#include "sj-settings-page-private.h"

/* A provider that takes longer to list its models is as good as down. */
#define FETCH_TIMEOUT_S 30

static void
update_models_view (SjSettingsPage *self)
{
  const char *page;

  switch (self->models_state)
    {
    case MODELS_FETCHING:
      page = "loading";
      break;
    case MODELS_FAILED:
      page = "error";
      break;
    case MODELS_STALE:
    case MODELS_FETCHED:
    default:
      page = g_list_model_get_n_items (G_LIST_MODEL (self->filtered_models)) > 0 ? "models" : "empty";
      break;
    }

  gtk_stack_set_visible_child_name (self->models_stack, page);
  gtk_widget_set_visible (GTK_WIDGET (self->models_error_row), self->models_state == MODELS_FAILED);
}

static void
set_models (SjSettingsPage     *self,
            const char * const *ids)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->models));

  gtk_string_list_splice (self->models, 0, n, ids);
}

static void
show_models_error (SjSettingsPage *self,
                   const char     *message)
{
  self->models_state = MODELS_FAILED;
  set_models (self, NULL);
  gtk_label_set_label (self->models_error_label, message);
  adw_action_row_set_subtitle (self->models_error_row, message);
  update_models_view (self);
}

static void
fetch_models_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SjSettingsPage *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjModelCatalog) catalog = NULL;

  /* Cancelled when the page went away or a newer fetch replaced this one:
   * @self may be gone, so it is not touched. */
  catalog = sj_model_catalog_fetch_finish (result, &error);
  if (_sj_settings_page_is_cancelled (error))
    return;

  if (error != NULL)
    {
      show_models_error (self, error->message);
      return;
    }

  self->models_state = MODELS_FETCHED;
  set_models (self, sj_model_catalog_get_ids (catalog));
  update_models_view (self);
}

void
_sj_settings_page_invalidate_models (SjSettingsPage *self)
{
  if (self->models_cancellable != NULL)
    g_cancellable_cancel (self->models_cancellable);
  self->models_state = MODELS_STALE;
  set_models (self, NULL);
  update_models_view (self);
}

static void
refresh_clicked_cb (SjSettingsPage *self)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  sj_settings_page_refresh_models (self);
}

/* Opening the menu fetches the models once per endpoint. */
static void
models_popover_show_cb (SjSettingsPage *self,
                        GtkPopover     *popover)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  gtk_editable_set_text (GTK_EDITABLE (self->models_search), "");
  if (self->models_state == MODELS_STALE)
    sj_settings_page_refresh_models (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->models_search));
}

static void
choose_model (SjSettingsPage *self,
              guint           position)
{
  g_autoptr(GtkStringObject) item = g_list_model_get_item (G_LIST_MODEL (self->filtered_models), position);

  if (item == NULL)
    return;

  g_settings_set_string (self->settings, "model", gtk_string_object_get_string (item));
  gtk_popover_popdown (self->models_popover);
}

static void
model_row_activated_cb (SjSettingsPage *self,
                        GtkListBoxRow  *row,
                        GtkListBox     *list)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  choose_model (self, gtk_list_box_row_get_index (row));
}

/* Enter in the search takes the best match, as in the Sounds page. */
static void
models_search_activate_cb (SjSettingsPage *self,
                           GtkSearchEntry *entry)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  choose_model (self, 0);
}

static GtkWidget *
create_model_row_cb (gpointer item,
                     gpointer user_data)
{
  GtkWidget *label = gtk_label_new (gtk_string_object_get_string (item));

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  return label;
}

static void
filtered_models_changed_cb (SjSettingsPage *self,
                            guint           position,
                            guint           removed,
                            guint           added,
                            GListModel     *model)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  update_models_view (self);
}

void
_sj_settings_page_models_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_button);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_popover);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_search);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_stack);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_list);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_error_label);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, models_error_row);
  gtk_widget_class_bind_template_callback (widget_class, models_popover_show_cb);
  gtk_widget_class_bind_template_callback (widget_class, models_search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, refresh_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, model_row_activated_cb);
}

void
_sj_settings_page_models_init (SjSettingsPage *self)
{
  GtkStringFilter *filter;

  self->models = gtk_string_list_new (NULL);

  filter = gtk_string_filter_new (gtk_property_expression_new (GTK_TYPE_STRING_OBJECT, NULL, "string"));
  g_object_bind_property (self->models_search, "text", filter, "search", G_BINDING_SYNC_CREATE);
  self->filtered_models = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->models)), GTK_FILTER (filter));
  g_signal_connect_object (self->filtered_models, "items-changed",
                           G_CALLBACK (filtered_models_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_list_box_bind_model (self->models_list, G_LIST_MODEL (self->filtered_models),
                           create_model_row_cb, NULL, NULL);
  update_models_view (self);
}

/* Asks the provider for its models again, with the stored key. */
void
sj_settings_page_refresh_models (SjSettingsPage *self)
{
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  GCancellable *cancellable;

  g_assert (SJ_IS_SETTINGS_PAGE (self));

  cancellable = _sj_settings_page_restart_cancellable (&self->models_cancellable);

  if (!_sj_settings_page_get_endpoint (self, &provider, &base_url))
    {
      show_models_error (self, _("Enter the base URL of the endpoint first."));
      return;
    }

  self->models_state = MODELS_FETCHING;
  update_models_view (self);
  sj_model_catalog_fetch_async (provider, base_url, NULL, SJ_MODEL_FETCH_STORED_KEY, FETCH_TIMEOUT_S,
                                cancellable, fetch_models_cb, self);
}
