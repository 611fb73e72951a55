// bench/dryrun: jazz, 96 bpm, in D
setcpm(96/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("LinnDrum")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("LinnDrum").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("D1:minor").s("square")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm9 G13 C^9 A7b9>").voicing().s("gm_electric_guitar_muted")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("D4:minor").s("supersaw")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// texture: filtered noise sweeps
$: s("white").lpf(sine.range(200, 4000).slow(16)).attack(1).release(2).sustain(1).gain(.05)

// everything a little wider
all(x => x.room(.1))
