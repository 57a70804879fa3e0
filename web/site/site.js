// What every page of the site does, whatever it teaches: its continuous controls get sliders, and a table wider
// than the screen says that it scrolls.
import { addSliders } from './controls.js';

addSliders();

const scrolls = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const box = target.closest('.table-scroll');
    box.toggleAttribute('data-scrolls', box.scrollWidth > box.clientWidth + 1);
  }
});
for (const box of document.querySelectorAll('.table-scroll')) {
  scrolls.observe(box);
  const table = box.querySelector('table');
  if (table) scrolls.observe(table);
}
