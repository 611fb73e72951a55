// bench/dryrun: electro, 122 bpm, in A
setcpm(122/4)

// drums: euclidean layers
$: s("bd(3,8), sd(2,8,2), hh(7,16)").bank("RolandTR909")
  .every(4, x => x.fast(2)).gain(.8)
$: s("rim(5,16,3)").bank("RolandTR909").gain(.4).room(.3)

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("A1:minor").s("supersaw")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("triangle")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("sawtooth")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("A4:pentatonic").s("triangle")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)
