// The home page's guided tour: each idea mounts its own section; the page is ready once all have drawn.
import { load } from 'posembed';
import 'posembed/components';
import { mountAddConcat } from './ideas/add-concat.js';
import { mountBalance } from './ideas/balance.js';
import { mountBarberPole } from './ideas/barber-pole.js';
import { mountBinaryClock } from './ideas/binary-clock.js';
import { mountCausal } from './ideas/causal.js';
import { mountCounting } from './ideas/counting.js';
import { mountExtrapolation } from './ideas/extrapolation.js';
import { mountPermutation } from './ideas/permutation.js';
import { mountRopeShift, mountScoresByDistance, mountSinusoidDots } from './ideas/relative.js';
import { mountRotation } from './ideas/rotation.js';
import { mountSignature } from './ideas/signature.js';
import { mountDropout } from './ideas/dropout.js';
import { mountDesiderata } from './ideas/desiderata.js';
import { mountDirection } from './ideas/direction.js';
import { mountOneHot } from './one-hot.js';

const pe = await load();
const section = (id) => document.getElementById(id);
for (const button of document.querySelectorAll('#relative-rope .shift')) {
  button.addEventListener('click', () => {
    const form = section('relative-rope').querySelector('form');
    const by = Number(button.dataset.by);
    const [m, n] = [Number(form.m.value) + by, Number(form.n.value) + by];
    if (Math.min(m, n) < 0 || Math.max(m, n) > 31) return;
    form.m.value = String(m);
    form.n.value = String(n);
    form.dispatchEvent(new Event('input'));
  });
}
await Promise.all([
  mountOneHot(section('one-hot')),
  mountCounting(pe, section('counting')),
  mountBinaryClock(pe, section('binary')),
  mountBarberPole(pe, section('barber')),
  mountSignature(pe, section('signature')),
  mountPermutation(pe, section('permutation')),
  mountCausal(pe, section('causal-order')),
  mountBalance(pe, section('balance')),
  mountAddConcat(pe, section('add-concat')),
  mountRotation(pe, section('relative-circle')),
  mountDropout(pe, section('dropout')),
  mountSinusoidDots(pe, section('relative-dots')),
  mountDirection(pe, section('relative-direction')),
  mountRopeShift(pe, section('relative-rope')),
  mountScoresByDistance(pe, section('relative-all')),
  mountExtrapolation(pe, section('extrapolation')),
  mountDesiderata(pe, section('desiderata')),
]);
document.documentElement.dataset.ready = 'true';
