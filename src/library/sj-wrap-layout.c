/* sj-wrap-layout.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Lays children out in rows, left to right (right to left in RTL
 * languages), starting a new row when the next child would not fit: the
 * filter chips of the Reference and Sounds pages, every one of them whole
 * at any panel width. GTK 4.8 has no wrapping box of its own (GtkFlowBox
 * wraps each child in a focusable row of its own, two tab stops per chip),
 * and libadwaita's AdwWrapBox came later.
 */

#include "config.h"

#include "sj-wrap-layout.h"

struct _SjWrapLayout
{
  GtkLayoutManager parent_instance;

  int              spacing;
};

G_DEFINE_FINAL_TYPE (SjWrapLayout, sj_wrap_layout, GTK_TYPE_LAYOUT_MANAGER)

static GtkSizeRequestMode
sj_wrap_layout_get_request_mode (GtkLayoutManager *manager,
                                 GtkWidget        *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* Walks the visible children in rows for @width; with @allocate, places
 * them. Returns the height the rows take. */
static int
lay_out (SjWrapLayout *self,
         GtkWidget    *widget,
         int           width,
         gboolean      allocate)
{
  gboolean rtl = gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL;
  GtkWidget *row_start = NULL;
  int x = 0, y = 0, row_height = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      int child_width, child_height;

      if (!gtk_widget_should_layout (child))
        continue;

      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &child_width, NULL, NULL);
      child_width = MIN (child_width, width);
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, child_width, NULL, &child_height, NULL, NULL);

      /* A new row, unless this is the first child of the current one. */
      if (row_start != NULL && x + child_width > width)
        {
          y += row_height + self->spacing;
          x = 0;
          row_height = 0;
          row_start = NULL;
        }
      if (row_start == NULL)
        row_start = child;

      if (allocate)
        {
          GtkAllocation allocation = { rtl ? width - x - child_width : x, y, child_width, child_height };

          gtk_widget_size_allocate (child, &allocation, -1);
        }

      x += child_width + self->spacing;
      row_height = MAX (row_height, child_height);
    }

  return y + row_height;
}

static void
sj_wrap_layout_measure (GtkLayoutManager *manager,
                        GtkWidget        *widget,
                        GtkOrientation    orientation,
                        int               for_size,
                        int              *minimum,
                        int              *natural,
                        int              *minimum_baseline,
                        int              *natural_baseline)
{
  SjWrapLayout *self = SJ_WRAP_LAYOUT (manager);
  int widest = 0, all = 0, n = 0;

  if (orientation == GTK_ORIENTATION_VERTICAL)
    {
      /* Without a width, as if everything fit on one row. */
      int height = lay_out (self, widget, for_size < 0 ? G_MAXINT / 2 : for_size, FALSE);

      *minimum = *natural = height;
      return;
    }

  /* The widest child is the least; all of them on one row is the most. */
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      int child_min, child_nat;

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &child_min, &child_nat, NULL, NULL);
      widest = MAX (widest, child_min);
      all += child_nat;
      n++;
    }

  *minimum = widest;
  *natural = all + MAX (n - 1, 0) * self->spacing;
}

static void
sj_wrap_layout_allocate (GtkLayoutManager *manager,
                         GtkWidget        *widget,
                         int               width,
                         int               height,
                         int               baseline)
{
  lay_out (SJ_WRAP_LAYOUT (manager), widget, width, TRUE);
}

static void
sj_wrap_layout_class_init (SjWrapLayoutClass *klass)
{
  GtkLayoutManagerClass *manager_class = GTK_LAYOUT_MANAGER_CLASS (klass);

  manager_class->get_request_mode = sj_wrap_layout_get_request_mode;
  manager_class->measure = sj_wrap_layout_measure;
  manager_class->allocate = sj_wrap_layout_allocate;
}

static void
sj_wrap_layout_init (SjWrapLayout *self)
{
}

/**
 * sj_wrap_layout_new:
 * @spacing: pixels between children, across and between rows
 */
GtkLayoutManager *
sj_wrap_layout_new (int spacing)
{
  SjWrapLayout *self = g_object_new (SJ_TYPE_WRAP_LAYOUT, NULL);

  self->spacing = spacing;
  return GTK_LAYOUT_MANAGER (self);
}
