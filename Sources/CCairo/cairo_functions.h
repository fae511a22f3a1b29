/* Every cairo C function RegionSearch calls (Swift files importing CCairo), with the prototype of
   the installed header: written by scripts/make-c-forwarders cairo; run it again after a new
   call. loader.c defines each as a function of that prototype (checked by the compiler against
   the header) that forwards through a pointer resolved when the library is loaded. */
#ifndef REGIONSEARCH_CAIRO_FUNCTIONS_H
#define REGIONSEARCH_CAIRO_FUNCTIONS_H
#define RS_CAIRO_FUNCTIONS(F, V) \
    V(cairo_arc, (cairo_t *a0, double a1, double a2, double a3, double a4, double a5), (a0, a1, a2, a3, a4, a5)) \
    V(cairo_clip, (cairo_t *a0), (a0)) \
    V(cairo_close_path, (cairo_t *a0), (a0)) \
    F(cairo_t *, cairo_create, (cairo_surface_t *a0), (a0)) \
    V(cairo_destroy, (cairo_t *a0), (a0)) \
    V(cairo_fill, (cairo_t *a0), (a0)) \
    V(cairo_fill_preserve, (cairo_t *a0), (a0)) \
    V(cairo_font_extents, (cairo_t *a0, cairo_font_extents_t *a1), (a0, a1)) \
    F(cairo_scaled_font_t *, cairo_get_scaled_font, (cairo_t *a0), (a0)) \
    V(cairo_glyph_free, (cairo_glyph_t *a0), (a0)) \
    F(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t a0, int a1, int a2), (a0, a1, a2)) \
    F(cairo_surface_t *, cairo_image_surface_create_from_png_stream, (cairo_read_func_t a0, void *a1), (a0, a1)) \
    F(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *a0), (a0)) \
    F(cairo_format_t, cairo_image_surface_get_format, (cairo_surface_t *a0), (a0)) \
    F(int, cairo_image_surface_get_height, (cairo_surface_t *a0), (a0)) \
    F(int, cairo_image_surface_get_stride, (cairo_surface_t *a0), (a0)) \
    F(int, cairo_image_surface_get_width, (cairo_surface_t *a0), (a0)) \
    V(cairo_line_to, (cairo_t *a0, double a1, double a2), (a0, a1, a2)) \
    V(cairo_move_to, (cairo_t *a0, double a1, double a2), (a0, a1, a2)) \
    V(cairo_new_path, (cairo_t *a0), (a0)) \
    V(cairo_paint, (cairo_t *a0), (a0)) \
    F(cairo_surface_t *, cairo_pdf_surface_create_for_stream, (cairo_write_func_t a0, void *a1, double a2, double a3), (a0, a1, a2, a3)) \
    V(cairo_pdf_surface_restrict_to_version, (cairo_surface_t *a0, cairo_pdf_version_t a1), (a0, a1)) \
    V(cairo_pdf_surface_set_metadata, (cairo_surface_t *a0, cairo_pdf_metadata_t a1, const char *a2), (a0, a1, a2)) \
    V(cairo_rectangle, (cairo_t *a0, double a1, double a2, double a3, double a4), (a0, a1, a2, a3, a4)) \
    V(cairo_restore, (cairo_t *a0), (a0)) \
    V(cairo_save, (cairo_t *a0), (a0)) \
    F(cairo_status_t, cairo_scaled_font_text_to_glyphs, (cairo_scaled_font_t *a0, double a1, double a2, const char *a3, int a4, cairo_glyph_t **a5, int *a6, cairo_text_cluster_t **a7, int *a8, cairo_text_cluster_flags_t *a9), (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)) \
    V(cairo_select_font_face, (cairo_t *a0, const char *a1, cairo_font_slant_t a2, cairo_font_weight_t a3), (a0, a1, a2, a3)) \
    V(cairo_set_fill_rule, (cairo_t *a0, cairo_fill_rule_t a1), (a0, a1)) \
    V(cairo_set_font_size, (cairo_t *a0, double a1), (a0, a1)) \
    V(cairo_set_line_join, (cairo_t *a0, cairo_line_join_t a1), (a0, a1)) \
    V(cairo_set_line_width, (cairo_t *a0, double a1), (a0, a1)) \
    V(cairo_set_source_rgba, (cairo_t *a0, double a1, double a2, double a3, double a4), (a0, a1, a2, a3, a4)) \
    V(cairo_set_source_surface, (cairo_t *a0, cairo_surface_t *a1, double a2, double a3), (a0, a1, a2, a3)) \
    V(cairo_show_text, (cairo_t *a0, const char *a1), (a0, a1)) \
    F(cairo_status_t, cairo_status, (cairo_t *a0), (a0)) \
    F(const char *, cairo_status_to_string, (cairo_status_t a0), (a0)) \
    V(cairo_stroke, (cairo_t *a0), (a0)) \
    V(cairo_stroke_preserve, (cairo_t *a0), (a0)) \
    V(cairo_surface_destroy, (cairo_surface_t *a0), (a0)) \
    V(cairo_surface_finish, (cairo_surface_t *a0), (a0)) \
    V(cairo_surface_flush, (cairo_surface_t *a0), (a0)) \
    V(cairo_surface_mark_dirty, (cairo_surface_t *a0), (a0)) \
    F(cairo_status_t, cairo_surface_status, (cairo_surface_t *a0), (a0)) \
    F(cairo_status_t, cairo_surface_write_to_png_stream, (cairo_surface_t *a0, cairo_write_func_t a1, void *a2), (a0, a1, a2)) \
    F(cairo_surface_t *, cairo_svg_surface_create_for_stream, (cairo_write_func_t a0, void *a1, double a2, double a3), (a0, a1, a2, a3)) \
    V(cairo_svg_surface_restrict_to_version, (cairo_surface_t *a0, cairo_svg_version_t a1), (a0, a1)) \
    V(cairo_svg_surface_set_document_unit, (cairo_surface_t *a0, cairo_svg_unit_t a1), (a0, a1)) \
    V(cairo_text_extents, (cairo_t *a0, const char *a1, cairo_text_extents_t *a2), (a0, a1, a2)) \
    V(cairo_text_path, (cairo_t *a0, const char *a1), (a0, a1))
#endif
