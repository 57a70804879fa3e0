// Figures that talk to each other: the row of the heatmap under the reader's cursor (mouse, touch or keys) is drawn
// as a line across its dimensions, through the elements' 'cursor' event; and the line's cursor points back into the
// heatmap through its settable cursor.
import { load } from 'posembed';
import { Figure } from 'posembed/components';

const heatmap = document.querySelector('#linked-heatmap');
const length = Number(heatmap.getAttribute('length'));
const dModel = Number(heatmap.getAttribute('d-model'));
const pe = await load();
const table = pe.sinusoidal({ length, dModel });
const dimensions = Array.from({ length: dModel }, (_, i) => i);
const figure = new Figure(document.querySelector('#linked-row'), { label: 'One position of the table, across its dimensions', maxHeight: 220 });
let shown = -1;

function drawRow(row) {
  if (row === shown) return;
  shown = row;
  figure.lines([{ label: `position ${row}`, x: dimensions, y: Array.from(table.data.subarray(row * dModel, (row + 1) * dModel)) }],
    { x: { label: 'dimension' }, y: { label: 'value', domain: [-1, 1] } });
  figure.caption = `Position ${row} across its ${dModel} dimensions, sine and cosine of each frequency side by side: the line `
    + 'alternates between them. The fast pairs on the left are anywhere on their circle; the slow ones on the right have hardly '
    + 'turned (sine near 0, cosine near 1). Point at another row of the heatmap to draw it here; point along this line to mark '
    + 'its column up there.';
}

heatmap.addEventListener('cursor', (event) => drawRow(event.detail.row));
figure.element.addEventListener('cursor', (event) => { heatmap.cursor = { row: shown, column: event.detail.index }; });
drawRow(0);
