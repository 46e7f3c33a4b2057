/**
 * English words for the accessibility checks (checks/accessibility-rules.ts): one per axe-core rule
 * that Lighthouse 12 scores, written for this service.
 */
import type { AccessibilityRule } from '../accessibility-rules.ts';
import type { CheckTexts } from './texts.ts';

/** Labels of an accessibility value's fields. */
const fields = { outcome: 'Outcome', impact: 'Impact', nodes: 'Elements', weight: 'Weight' };

/** The accessibility checks in English. */
export const enAccessibility: Readonly<Record<AccessibilityRule['id'], CheckTexts>> = {
  a11y_accesskeys: {
    title: 'Unique access keys',
    description:
      'Each accesskey value is used once. Two elements sharing a shortcut leave keyboard users unsure which one they will reach.',
    fix: 'Give every element with an accesskey attribute a different key, or remove the attribute.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/accesskeys',
  },
  a11y_aria_allowed_attr: {
    title: 'ARIA attributes fit their roles',
    description:
      "Every aria-* attribute is one the element's role supports. Assistive technology ignores or misreads attributes a role does not allow.",
    fix: "Remove the ARIA attributes the element's role does not support, or give the element the role that has them.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-allowed-attr',
  },
  a11y_aria_allowed_role: {
    title: 'Allowed ARIA roles',
    description:
      'Elements only carry roles that HTML allows for them. A role that contradicts the element confuses screen readers.',
    fix: 'Remove the role, or use an element whose native meaning matches it (a <button> instead of role="button" on a heading).',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-allowed-role',
  },
  a11y_aria_command_name: {
    title: 'Commands have names',
    description:
      'Elements with role button, link or menuitem have a name. Without one a screen reader announces only "button" or "link".',
    fix: 'Give the element text content, an aria-label, or an aria-labelledby pointing at visible text.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-command-name',
  },
  a11y_aria_conditional_attr: {
    title: 'ARIA attributes used as the role expects',
    description:
      'Conditional ARIA attributes (such as aria-checked on a native checkbox, or row attributes outside a treegrid) are used only where the specification allows them.',
    fix: "Remove the attribute where the element's native state already says it, or use it only in the roles that allow it.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-conditional-attr',
  },
  a11y_aria_deprecated_role: {
    title: 'No deprecated ARIA roles',
    description: 'The page does not use roles ARIA has deprecated, which assistive technology may no longer handle.',
    fix: 'Replace the deprecated role with its current equivalent, or with a native HTML element.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-deprecated-role',
  },
  a11y_aria_dialog_name: {
    title: 'Dialogs have names',
    description:
      'Elements with role dialog or alertdialog have a name, so people using a screen reader know what the dialog is about when it opens.',
    fix: "Add aria-label, or aria-labelledby pointing at the dialog's heading.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-dialog-name',
  },
  a11y_aria_hidden_body: {
    title: 'The page body is not hidden',
    description:
      'The <body> element does not carry aria-hidden="true". When it does, screen readers see nothing of the page.',
    fix: 'Remove aria-hidden from <body>; hide only the parts that are meant to be hidden.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-hidden-body',
  },
  a11y_aria_hidden_focus: {
    title: 'Hidden parts cannot take focus',
    description:
      'Elements hidden with aria-hidden contain nothing that can be reached with the Tab key. Otherwise keyboard users land on something a screen reader cannot describe.',
    fix: 'Remove aria-hidden, or make the focusable elements inside unfocusable (tabindex="-1", disabled, or hidden for everyone).',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-hidden-focus',
  },
  a11y_aria_input_field_name: {
    title: 'ARIA input fields have names',
    description:
      'Custom input fields (role combobox, listbox, searchbox, slider, spinbutton, textbox) have a name a screen reader can announce.',
    fix: 'Add aria-label or aria-labelledby to the field, or use a native <input> with a <label>.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-input-field-name',
  },
  a11y_aria_meter_name: {
    title: 'Meters have names',
    description: 'Elements with role meter have a name, so the value they show is announced with what it measures.',
    fix: 'Add aria-label or aria-labelledby naming what the meter measures.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-meter-name',
  },
  a11y_aria_progressbar_name: {
    title: 'Progress bars have names',
    description: 'Elements with role progressbar have a name, so people hear what is progressing.',
    fix: 'Add aria-label or aria-labelledby naming the task in progress.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-progressbar-name',
  },
  a11y_aria_prohibited_attr: {
    title: 'No prohibited ARIA attributes',
    description:
      'Elements do not carry ARIA attributes their role prohibits (such as aria-label on a generic <div> or <span>), which screen readers ignore.',
    fix: 'Remove the prohibited attribute; put the text in the content, or give the element a role that allows it.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-prohibited-attr',
  },
  a11y_aria_required_attr: {
    title: 'Required ARIA attributes present',
    description:
      "Elements with a role carry the attributes that role needs (a slider's aria-valuenow, a checkbox's aria-checked). Without them the state cannot be announced.",
    fix: 'Add the attributes the role requires, with correct values.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-required-attr',
  },
  a11y_aria_required_children: {
    title: 'Roles contain the children they need',
    description:
      'Roles that are containers (list, menu, tablist, listbox...) contain the child roles they require, so the structure can be navigated.',
    fix: "Put elements with the required child roles inside the container, or remove the container's role.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-required-children',
  },
  a11y_aria_required_parent: {
    title: 'Roles sit inside their parent',
    description:
      'Roles that belong to a container (listitem, menuitem, tab, option...) are inside an element with the container role.',
    fix: 'Wrap the element in its required parent role, or remove its role.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-required-parent',
  },
  a11y_aria_roles: {
    title: 'Valid ARIA roles',
    description:
      'Every role attribute names a real, non-abstract ARIA role. An invalid role is ignored, leaving the element without the meaning intended.',
    fix: "Correct the role's spelling, or use one of the roles ARIA defines.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-roles',
  },
  a11y_aria_text: {
    title: 'No focusable content inside role=text',
    description:
      'Elements with role=text contain nothing focusable. That role hides the meaning of what is inside it from screen readers.',
    fix: 'Remove role="text", or move links and buttons out of the element.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-text',
  },
  a11y_aria_toggle_field_name: {
    title: 'Toggles have names',
    description:
      'Custom toggles (role checkbox, menuitemcheckbox, menuitemradio, radio, switch) have a name that says what they turn on or off.',
    fix: 'Give the toggle text content, aria-label or aria-labelledby.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-toggle-field-name',
  },
  a11y_aria_tooltip_name: {
    title: 'Tooltips have names',
    description: 'Elements with role tooltip have text or a label, so there is something to announce.',
    fix: "Put the tooltip's text inside the element, or add aria-label.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-tooltip-name',
  },
  a11y_aria_treeitem_name: {
    title: 'Tree items have names',
    description: 'Elements with role treeitem have a name, so people moving through a tree hear where they are.',
    fix: 'Give each tree item text content, aria-label or aria-labelledby.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-treeitem-name',
  },
  a11y_aria_valid_attr_value: {
    title: 'ARIA attribute values are valid',
    description:
      'ARIA attributes hold values of the right kind (true/false, a number, the id of an element that exists).',
    fix: "Fix the attribute's value: check its allowed values and that referenced ids exist.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-valid-attr-value',
  },
  a11y_aria_valid_attr: {
    title: 'ARIA attribute names are valid',
    description: 'Every aria-* attribute is one ARIA defines. A misspelled attribute does nothing.',
    fix: "Correct the attribute's name (aria-labelledby, not aria-labeledby) or remove it.",
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/aria-valid-attr',
  },
  a11y_button_name: {
    title: 'Buttons have names',
    description:
      'Every button has a name a screen reader can announce. An icon-only button without a label is read as just "button".',
    fix: 'Put text in the button, or add aria-label (for an icon, hidden text or an aria-label saying what it does).',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/button-name',
  },
  a11y_bypass: {
    title: 'A way to skip repeated content',
    description:
      'The page offers a way past repeated blocks (a skip link, headings or landmarks), so keyboard and screen reader users reach the content quickly.',
    fix: 'Add a <main> landmark, headings, or a "Skip to content" link at the top of the page.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/bypass',
  },
  a11y_color_contrast: {
    title: 'Text contrast is sufficient',
    description:
      "Text stands out from its background by at least WCAG AA's contrast (4.5:1, 3:1 for large text). Low-contrast text is hard to read for many people.",
    fix: 'Darken the text or lighten the background (or the reverse) until the contrast ratio reaches 4.5:1 (3:1 for text from 24 px, or 18.5 px bold).',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/color-contrast',
  },
  a11y_definition_list: {
    title: 'Definition lists are well formed',
    description:
      'A <dl> contains only <dt> and <dd> groups (optionally in <div>s), script or template elements, so its terms and definitions are announced in pairs.',
    fix: 'Keep only <dt>/<dd> pairs (or <div>s of them) directly inside <dl>.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/definition-list',
  },
  a11y_dlitem: {
    title: 'Terms and definitions sit in a list',
    description: '<dt> and <dd> elements are inside a <dl>, so their relation is announced.',
    fix: 'Wrap the <dt>/<dd> elements in a <dl>.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/dlitem',
  },
  a11y_document_title: {
    title: 'The page has a title',
    description:
      'The document has a non-empty <title>. It is the first thing a screen reader says and what tabs and bookmarks show.',
    fix: 'Add a <title> in <head> that says what the page is.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/document-title',
  },
  a11y_duplicate_id_aria: {
    title: 'Ids used by ARIA and labels are unique',
    description:
      'Ids that ARIA attributes or labels point at are unique. With duplicates, the label or description of one element ends up on another.',
    fix: 'Give each element a different id and update the aria-labelledby, aria-describedby and for attributes that refer to them.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/duplicate-id-aria',
  },
  a11y_form_field_multiple_labels: {
    title: 'Form fields have one label',
    description:
      'No form field has more than one <label>. Screen readers announce only one of them, or read them inconsistently.',
    fix: 'Keep one <label> per field; put extra hints in aria-describedby.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/form-field-multiple-labels',
  },
  a11y_frame_title: {
    title: 'Frames have titles',
    description:
      'Every <iframe> and <frame> has a title saying what it contains, so people can decide whether to enter it.',
    fix: 'Add a title attribute to each frame (title="Map of our offices").',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/frame-title',
  },
  a11y_heading_order: {
    title: 'Headings go down one level at a time',
    description:
      'Heading levels increase by one at a time (h2 then h3, not h2 then h5), so the outline people navigate by makes sense.',
    fix: 'Use the heading level that matches the structure; style the size with CSS, not with a deeper level.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/heading-order',
  },
  a11y_html_has_lang: {
    title: 'The page declares its language',
    description: '<html> has a lang attribute, so screen readers pronounce the text in the right language.',
    fix: 'Add lang to <html>, for instance <html lang="en">.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/html-has-lang',
  },
  a11y_html_lang_valid: {
    title: "The page's language is valid",
    description: '<html lang> holds a valid language tag (BCP 47), which screen readers can act on.',
    fix: 'Use a valid tag such as en, fr or pt-BR.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/html-lang-valid',
  },
  a11y_html_xml_lang_mismatch: {
    title: 'lang and xml:lang agree',
    description: 'When <html> has both lang and xml:lang, they name the same base language.',
    fix: 'Make xml:lang match lang, or remove xml:lang.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/html-xml-lang-mismatch',
  },
  a11y_image_alt: {
    title: 'Images have text alternatives',
    description:
      'Every <img> has an alt attribute: words describing it, or alt="" for a decorative image. Without it a screen reader reads the file name.',
    fix: 'Add alt to each image: a short description of what it shows, or alt="" when it is only decoration.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/image-alt',
  },
  a11y_image_redundant_alt: {
    title: 'Image alternatives do not repeat nearby text',
    description:
      "An image's alt text does not repeat the text of the link or button around it, which would be read twice.",
    fix: 'Use alt="" when the surrounding text already says it, or describe what the image adds.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/image-redundant-alt',
  },
  a11y_input_button_name: {
    title: 'Input buttons have names',
    description: '<input type="button">, "submit" and "reset" have a value or label to announce.',
    fix: 'Give the input a value attribute (value="Send") or aria-label.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/input-button-name',
  },
  a11y_input_image_alt: {
    title: 'Image buttons have text alternatives',
    description: '<input type="image"> has alt text saying what the button does.',
    fix: 'Add alt to the input, naming the action (alt="Search").',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/input-image-alt',
  },
  a11y_label: {
    title: 'Form fields have labels',
    description:
      'Every form field has a label. Without one, people using a screen reader hear "edit text" and not what to type.',
    fix: 'Add a <label for="id"> (or wrap the field in <label>), or aria-label or aria-labelledby; a placeholder is not a label.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/label',
  },
  a11y_link_in_text_block: {
    title: 'Links stand out from text',
    description:
      'Links inside a paragraph can be told from the text around them other than by colour alone, for people who cannot see the difference.',
    fix: 'Underline links in running text, or give them a contrast of at least 3:1 against the text plus a visible focus and hover style.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/link-in-text-block',
  },
  a11y_link_name: {
    title: 'Links have names',
    description:
      'Every link has text or a label saying where it goes. An image link without alt text is read as just "link".',
    fix: 'Put text in the link, give its image alt text, or add aria-label.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/link-name',
  },
  a11y_list: {
    title: 'Lists contain list items',
    description:
      '<ul> and <ol> contain only <li> elements (and script or template), so the list is announced with its number of items.',
    fix: 'Put each item in an <li>; move other elements out of the list.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/list',
  },
  a11y_listitem: {
    title: 'List items sit in a list',
    description: '<li> elements are inside a <ul>, <ol> or <menu>.',
    fix: 'Wrap the <li> elements in a <ul> or <ol>.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/listitem',
  },
  a11y_meta_refresh: {
    title: 'No timed refresh or redirect',
    description:
      'The page does not reload or redirect itself on a timer with <meta http-equiv="refresh">, which moves people before they have finished reading.',
    fix: 'Remove the timed refresh; redirect on the server (301), or let the person choose when to reload.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/meta-refresh',
  },
  a11y_meta_viewport: {
    title: 'Zoom is not disabled',
    description:
      'The viewport meta tag does not forbid zooming (user-scalable=no, maximum-scale below 5), so people with low vision can enlarge the text.',
    fix: 'Remove user-scalable=no and maximum-scale from the viewport meta tag.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/meta-viewport',
  },
  a11y_object_alt: {
    title: 'Objects have text alternatives',
    description: '<object> elements have text that describes them.',
    fix: 'Add aria-label, a title, or fallback text inside the <object>.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/object-alt',
  },
  a11y_select_name: {
    title: 'Select menus have labels',
    description: 'Every <select> has a label saying what is being chosen.',
    fix: 'Add a <label for> naming the choice, or aria-label.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/select-name',
  },
  a11y_skip_link: {
    title: 'Skip links lead somewhere',
    description:
      'Links that skip to a part of the page (href="#main") point at an element that exists and can take focus.',
    fix: 'Point the skip link at the id of an element that exists, such as <main id="main">.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/skip-link',
  },
  a11y_tabindex: {
    title: 'No positive tabindex',
    description:
      'No element has a tabindex above 0. Positive values override the natural tab order, and keyboard users jump around the page unpredictably.',
    fix: 'Use tabindex="0" (or none) and order the elements in the markup the way they should be reached.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/tabindex',
  },
  a11y_table_duplicate_name: {
    title: 'Table captions and summaries differ',
    description: "A table's <caption> and summary say different things, so the same words are not read twice.",
    fix: 'Keep the caption, and remove the summary or make it add something the caption does not say.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/table-duplicate-name',
  },
  a11y_target_size: {
    title: 'Touch targets are large enough',
    description:
      'Buttons and links are at least 24 by 24 CSS pixels, or have enough space around them, so they can be hit without also hitting a neighbour.',
    fix: 'Make small controls at least 24x24 px (padding counts), or space them apart.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/target-size',
  },
  a11y_td_headers_attr: {
    title: 'Table headers attributes point inside the table',
    description: 'Cells that use the headers attribute refer only to header cells of the same table.',
    fix: 'Fix the headers attribute so each id names a <th> in the same table.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/td-headers-attr',
  },
  a11y_th_has_data_cells: {
    title: 'Table headers describe cells',
    description:
      'Every <th> in a data table has data cells it describes. A header over nothing suggests a layout table or a broken one.',
    fix: 'Remove the empty header column or row, or use the table for data only (lay out pages with CSS).',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/th-has-data-cells',
  },
  a11y_valid_lang: {
    title: 'Language changes are valid',
    description: 'lang attributes on parts of the page hold valid language tags.',
    fix: 'Correct the lang value to a valid tag (en, de, zh-Hant...).',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/valid-lang',
  },
  a11y_video_caption: {
    title: 'Videos have captions',
    description: '<video> elements have a captions <track>, for people who cannot hear the sound.',
    fix: 'Add <track kind="captions" src="captions.vtt" srclang="en"> to the video.',
    fields: fields,
    learnMore: 'https://dequeuniversity.com/rules/axe/4.14/video-caption',
  },
};
